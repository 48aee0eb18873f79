// redactedStoreName and withoutStoreSecrets (voxen/store/store_name.hpp): both find a target's
// passwords with the same scan (secretSpans), so what one hides the other hides.
#include "voxen/store/store_name.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <vector>

namespace voxen {

namespace {

// A password in the target: raw bytes [begin, end), and its value as libpq would read it
// (percent-decoded in a URL, unquoted and unescaped in a keyword/value string).
struct Secret {
  size_t begin = 0, end = 0;
  std::string value;
};

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  return true;
}

// Case does not matter here, though libpq's prefix does: a URL Voxen takes for a file path is
// still named without its password.
size_t urlSchemeLength(std::string_view target) {
  for (const std::string_view scheme : {std::string_view("postgresql://"), std::string_view("postgres://")})
    if (startsWithNoCase(target, scheme)) return scheme.size();
  return 0;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoded text; from[i]/to[i] is the raw range that decoded character i came from.
struct Decoded {
  std::string text;
  std::vector<size_t> from, to;
};

Decoded percentDecoded(std::string_view raw, size_t offset = 0) {
  Decoded d;
  for (size_t i = 0; i < raw.size();) {
    const size_t width = raw[i] == '%' && i + 2 < raw.size() && hexValue(raw[i + 1]) >= 0 && hexValue(raw[i + 2]) >= 0 ? 3 : 1;
    d.text += width == 3 ? char(hexValue(raw[i + 1]) * 16 + hexValue(raw[i + 2])) : raw[i];
    d.from.push_back(offset + i);
    d.to.push_back(offset + i + width);
    i += width;
  }
  return d;
}

// password, sslpassword (libpq's two), or anything else ending so, in any case, around spaces.
bool isPasswordKey(std::string_view key) {
  while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.remove_suffix(1);
  constexpr std::string_view kPassword = "password";
  return key.size() >= kPassword.size() && startsWithNoCase(key.substr(key.size() - kPassword.size()), kPassword);
}

void addSecret(std::vector<Secret>& secrets, size_t begin, size_t end, std::string value) {
  if (end > begin) secrets.push_back({begin, end, std::move(value)});
}

std::vector<Secret> urlSecrets(std::string_view t, size_t start) {
  std::vector<Secret> secrets;
  // The userinfo's password: from the first ':' to the last '@' (see the header for why).
  const size_t at = t.rfind('@');
  if (at != std::string_view::npos && at >= start) {
    const size_t colon = t.find(':', start);
    if (colon < at) addSecret(secrets, colon + 1, at, percentDecoded(t.substr(colon + 1, at - colon - 1)).text);
  }
  // Query parameters, split on '&' only (a password may hold a '?'); a key ending in password
  // catches "x?password" after a '?' inside the userinfo too.
  const size_t question = t.find('?', start);
  if (question == std::string_view::npos) return secrets;
  for (size_t p = question + 1; p <= t.size();) {
    const size_t amp = std::min(t.find('&', p), t.size());
    const std::string_view param = t.substr(p, amp - p);
    const size_t eq = param.find('=');
    if (eq != std::string_view::npos) {
      if (isPasswordKey(percentDecoded(param.substr(0, eq)).text))
        addSecret(secrets, p + eq + 1, amp, percentDecoded(param.substr(eq + 1)).text);
    } else {
      const std::string decoded = percentDecoded(param).text;
      const size_t decodedEq = decoded.find('=');
      if (decodedEq != std::string::npos && isPasswordKey(std::string_view(decoded).substr(0, decodedEq)))
        addSecret(secrets, p, amp, decoded.substr(decodedEq + 1));
    }
    p = amp + 1;
  }
  return secrets;
}

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// libpq's keyword/value syntax: keyword (up to white space or '='), white space, '=', white
// space, then a value up to white space, or quoted in '...'; a backslash escapes the next byte
// in either.
std::vector<Secret> keywordSecrets(std::string_view t) {
  std::vector<Secret> secrets;
  for (size_t i = 0; i < t.size(); ++i) {
    if (isSpace(t[i]) || (i > 0 && !isSpace(t[i - 1]))) continue;
    size_t k = i;
    while (k < t.size() && !isSpace(t[k]) && t[k] != '=') ++k;
    const std::string_view keyword = t.substr(i, k - i);
    // libpq's keywords are words: maps/password=x.vxs is a path.
    if (!std::all_of(keyword.begin(), keyword.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
      continue;
    size_t e = k;
    while (e < t.size() && isSpace(t[e])) ++e;
    if (e >= t.size() || t[e] != '=' || !isPasswordKey(keyword)) continue;
    size_t v = e + 1;
    while (v < t.size() && isSpace(t[v])) ++v;
    const bool quoted = v < t.size() && t[v] == '\'';
    std::string value;
    size_t end = quoted ? v + 1 : v;
    for (; end < t.size(); ++end) {
      if (quoted ? t[end] == '\'' : isSpace(t[end])) break;
      if (t[end] == '\\' && end + 1 < t.size()) ++end;
      value += t[end];
    }
    if (quoted && end < t.size()) ++end;  // the closing quote
    // An unquoted value with a space (password=my secret) is cut short by libpq, which then
    // echoes the rest in its error: the words up to the next keyword= are hidden too.
    while (!quoted) {
      size_t word = end;
      while (word < t.size() && isSpace(t[word])) ++word;
      size_t wordEnd = word;
      while (wordEnd < t.size() && !isSpace(t[wordEnd])) ++wordEnd;
      size_t next = wordEnd;
      while (next < t.size() && isSpace(t[next])) ++next;
      if (word == wordEnd || t.substr(word, wordEnd - word).find('=') != std::string_view::npos || (next < t.size() && t[next] == '='))
        break;
      end = wordEnd;
    }
    addSecret(secrets, v, end, value);
    i = end > i ? end - 1 : i;
  }
  return secrets;
}

std::vector<Secret> secretsOf(std::string_view target) {
  const size_t scheme = urlSchemeLength(target);
  std::vector<Secret> secrets = scheme ? urlSecrets(target, scheme) : keywordSecrets(target);
  std::sort(secrets.begin(), secrets.end(), [](const Secret& a, const Secret& b) { return a.begin < b.begin; });
  return secrets;
}

bool overlapsSecret(size_t begin, size_t end, const std::vector<Secret>& secrets) {
  return std::any_of(secrets.begin(), secrets.end(), [&](const Secret& s) { return begin < s.end && s.begin < end; });
}

void replaceAll(std::string& text, std::string_view what, std::string_view with) {
  if (what.empty()) return;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + with.size())) text.replace(p, what.size(), with);
}

// Whether `fragment` appears in the target (as written, or percent-decoded) over a password.
bool isPieceOfSecret(std::string_view fragment, std::string_view target, const Decoded& decoded, const std::vector<Secret>& secrets) {
  if (fragment.empty()) return false;
  for (size_t p = target.find(fragment); p != std::string_view::npos; p = target.find(fragment, p + 1))
    if (overlapsSecret(p, p + fragment.size(), secrets)) return true;
  const std::string_view text = decoded.text;
  for (size_t p = text.find(fragment); p != std::string_view::npos; p = text.find(fragment, p + 1))
    if (overlapsSecret(decoded.from[p], decoded.to[p + fragment.size() - 1], secrets)) return true;
  return false;
}

}  // namespace

bool isKeywordConnectionString(std::string_view target) {
  // libpq 15's keywords (PQconndefaults).
  static constexpr std::string_view kKeywords[] = {
      "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "channel_binding", "connect_timeout",
      "client_encoding", "options", "application_name", "fallback_application_name", "keepalives", "keepalives_idle",
      "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "requiressl",
      "sslcompression", "sslcert", "sslkey", "sslpassword", "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer",
      "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib", "service", "target_session_attrs"};
  size_t i = 0;
  while (i < target.size() && isSpace(target[i])) ++i;
  size_t k = i;
  while (k < target.size() && (std::isalnum(static_cast<unsigned char>(target[k])) || target[k] == '_')) ++k;
  const std::string_view keyword = target.substr(i, k - i);
  while (k < target.size() && isSpace(target[k])) ++k;
  return k < target.size() && target[k] == '=' &&
         std::find(std::begin(kKeywords), std::end(kKeywords), keyword) != std::end(kKeywords);
}

std::string redactedStoreName(std::string_view target) {
  std::string out;
  size_t done = 0;
  for (const Secret& s : secretsOf(target)) {
    if (s.end <= done) continue;
    const size_t begin = std::max(s.begin, done);
    out.append(target.substr(done, begin - done));
    if (begin == s.begin) out += "***";
    done = s.end;
  }
  out.append(target.substr(done));
  return out;
}

std::string withoutStoreSecrets(std::string_view message, std::string_view target) {
  std::string out(message);
  const std::vector<Secret> secrets = secretsOf(target);
  if (secrets.empty()) return out;
  replaceAll(out, target, redactedStoreName(target));
  for (const Secret& s : secrets) {
    replaceAll(out, target.substr(s.begin, s.end - s.begin), "***");
    replaceAll(out, s.value, "***");
  }
  const Decoded decoded = percentDecoded(target);
  for (size_t open = out.find('"'); open != std::string::npos;) {
    const size_t close = out.find('"', open + 1);
    if (close == std::string::npos) break;
    const std::string fragment = out.substr(open + 1, close - open - 1);
    if (isPieceOfSecret(fragment, target, decoded, secrets)) {
      out.replace(open + 1, fragment.size(), "***");
      open = out.find('"', open + 5);
    } else {
      open = out.find('"', close + 1);
    }
  }
  return out;
}

}  // namespace voxen
