#pragma once
// How a store is named in anything Voxen prints, logs or throws: a store target (a file path, a
// postgresql:// URL) with every password in it replaced by ***. Every message, summary line
// and JSON field that names a store goes through redactedStoreName; tests/store/
// test_store_name.cpp checks it against every spelling libpq accepts, and tests/lint/
// store_names.py that the tools name stores through it.
//
// What counts as a password is decided conservatively, for what libpq would take and for what a
// user meant, since a mistyped URL is exactly the one an error message echoes:
// - a URL's userinfo: from the first ':' after "://" to the LAST '@' of the URL, so that an
//   unencoded '@', '/', '?' or ':' inside the password is hidden too (libpq itself stops at the
//   first '@' or '/', and then shows the rest of the password as a host, port or database in its
//   errors). A URL with an '@' only in a query value and a port (postgresql://h:5432/d?user=a@b)
//   loses a little more than its password;
// - a URL query parameter whose key, percent-decoded and in any case, is password or
//   sslpassword (passwor%64=, %70assword=), up to the next '&'; a parameter with no '=' whose
//   decoded text starts with such a key (passwor%64%3Dx) is hidden whole;
// - in a keyword/value connection string (host=/tmp password='a b\' c'), the value of a
//   password or sslpassword keyword at the start or after white space, quoted or not, a
//   backslash escaping the next byte; an unquoted value runs on over the words up to the next
//   keyword=. Voxen does not take such strings as stores, but names them when refusing.
// A file path is left as it is unless it looks like one of those.
#include <string>
#include <string_view>

namespace voxen {

// `target` as every message shows it: its passwords replaced by ***.
std::string redactedStoreName(std::string_view target);

// Whether `target` is a libpq keyword/value connection string (it starts with one of libpq's
// keywords and '=': "host=/tmp dbname=maps"). Voxen names a server by a URL only; such a
// target is refused rather than taken for a file named after it (and its password).
bool isKeywordConnectionString(std::string_view target);

// A message written by someone else about `target` (libpq's), with the store's passwords taken
// out: the target itself replaced by its redacted name, every password (as written and
// decoded) by ***, and any quoted "fragment" that is a piece of a password (libpq quotes what
// it could not parse: a port "pa" cut from the password "pa/ss") by "***".
std::string withoutStoreSecrets(std::string_view message, std::string_view target);

}  // namespace voxen
