#include "voxen_apps/typo_hints.hpp"

#include <algorithm>
#include <cstddef>

namespace voxen::apps {

namespace {

// Optimal string alignment distance: Levenshtein plus the swap of two neighbouring letters,
// the commonest typo ("mpa" for "map").
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string withoutDashes(const std::string& word) { return word.substr(word.find_first_not_of('-') == std::string::npos ? word.size() : word.find_first_not_of('-')); }

std::string lower(std::string word) {
  for (char& c : word) c = char(std::tolower(static_cast<unsigned char>(c)));
  return word;
}

bool looksLikeFlag(const std::string& word) { return word.size() > 1 && word[0] == '-' && !std::isdigit(static_cast<unsigned char>(word[1])) && word[1] != '.'; }

}  // namespace

std::vector<std::string> closestWords(const std::string& word, const std::vector<std::string>& known) {
  const std::string bare = lower(withoutDashes(word));
  if (bare.empty()) return {};
  const size_t allowed = std::clamp<size_t>(bare.size() / 4, 1, 3);
  size_t best = allowed + 1;
  std::vector<std::string> closest;
  for (const std::string& candidate : known) {
    const std::string other = lower(withoutDashes(candidate));
    // A word cut short ("--res") is as good as a typo of one letter.
    size_t distance = editDistance(bare, other);
    if (bare.size() >= 3 && other.starts_with(bare)) distance = std::min<size_t>(distance, 1);
    if (distance > allowed || distance > best) continue;
    if (distance < best) closest.clear(), best = distance;
    if (std::find(closest.begin(), closest.end(), candidate) == closest.end()) closest.push_back(candidate);
  }
  return closest;
}

std::string didYouMean(const std::vector<std::string>& candidates) {
  if (candidates.empty()) return "";
  std::string text = "; did you mean ";
  for (size_t i = 0; i < candidates.size(); ++i)
    text += (i == 0 ? "" : i + 1 == candidates.size() ? " or " : ", ") + candidates[i];
  return text + "?";
}

std::vector<std::string> visibleFlags(const CLI::App& command) {
  std::vector<std::string> flags;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_group().empty() || option->nonpositional() == false) continue;
    for (const std::string& name : option->get_lnames()) flags.push_back("--" + name);
    for (const std::string& name : option->get_snames()) flags.push_back("-" + name);
  }
  return flags;
}

std::vector<std::string> subcommandNames(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::App* sub : command.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

std::string parseErrorMessage(const CLI::ParseError& error, const CLI::App& command, const std::string& prefix) {
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr;
  const bool required = dynamic_cast<const CLI::RequiredError*>(&error) != nullptr;
  const std::vector<std::string> left = command.remaining();
  if ((!extras && !required) || left.empty()) return error.what();
  // CLI11 reports a missing required flag before an unknown one, but a misspelt flag is the
  // likelier cause of both: the unknown words come first.
  std::string message;
  const std::vector<std::string> flags = visibleFlags(command), commands = subcommandNames(command);
  std::vector<std::string> otherWords;
  bool unknownCommand = false;
  for (size_t i = 0; i < left.size(); ++i) {
    const std::string& word = left[i];
    if (looksLikeFlag(word)) {
      const std::string flag = word.substr(0, word.find('='));
      message += (message.empty() ? "" : "; ") + std::string("unknown option ") + flag + didYouMean(closestWords(flag, flags));
      // Its value, if it had one, is no separate mistake.
      if (word.find('=') == std::string::npos && i + 1 < left.size() && !looksLikeFlag(left[i + 1])) ++i;
    } else if (!commands.empty() && i == 0) {
      std::vector<std::string> names;
      for (const std::string& name : closestWords(word, commands)) names.push_back("'" + prefix + command.get_name() + " " + name + "'");
      message += "unknown command '" + prefix + command.get_name() + " " + word + "'" + didYouMean(names);
      unknownCommand = true;
    } else {
      otherWords.push_back(word);
    }
  }
  if (!otherWords.empty())
    message += (message.empty() ? "" : "; ") + std::string("unexpected argument") + (otherWords.size() > 1 ? "s " : " ") +
               CLI::detail::join(otherWords, " ");
  // A missing subcommand is the unknown one; a missing flag is worth saying too.
  if (required && !unknownCommand) message += " (" + std::string(error.what()) + ")";
  return message;
}

}  // namespace voxen::apps
