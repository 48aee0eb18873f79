#pragma once
// The number validators of every command-line option, in the voxen tool and the samples
// alike (CLI11 validators; target voxen_apps_common). The rules are strict: the whole word
// must be the number ("12px" is an error, not 12), a floating-point number must be finite
// (CLI11's own Range lets NaN through, since every comparison with NaN is false) and lie in
// its range. A message says what was expected and what was given; CLI11 puts the flag in
// front ("--hit: expected ..."). tests/cli/every_command/options.sh feeds NaN and infinities
// to every option of every command and sample, so an option declared without one of these
// fails it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace voxen::apps {

// The whole word as a number ("+" allowed in front), else nothing; parseFinite also refuses
// NaN and the infinities.
std::optional<int64_t> parseInteger(const std::string& word);
std::optional<double> parseFinite(const std::string& word);

// A whole number in [lo, hi]; the help shows the range as "[lo, hi]".
CLI::Validator integerIn(int64_t lo, int64_t hi);
// Any whole number from 0 to 2^64 - 1 (random seeds).
CLI::Validator naturalNumber();

enum class LowEnd { Closed, Open };   // whether `lo` itself is allowed
enum class HighEnd { Closed, Open };  // whether `hi` itself is allowed
// A finite number in [lo, hi] (or with open ends). `unit` is what the number counts, as a
// plural noun ("metres", "seconds", "degrees", "metres per second"), or empty for a plain
// number (a probability, a fraction, a factor): "expected a number of metres in (0, 10000],
// got 'nan'" or "expected a number in (0, 1), got 'nan'".
CLI::Validator numberIn(double lo, double hi, const std::string& unit, LowEnd low = LowEnd::Closed,
                        HighEnd high = HighEnd::Closed);
// Any finite number.
CLI::Validator finiteNumber();

// Exactly `count` finite numbers separated by commas ("0,-12,8"), kept as text by the option
// and read with numberList once validated.
CLI::Validator commaSeparatedNumbers(size_t count);
// The same, each number in [lo, hi] of `unit` (as for numberIn).
CLI::Validator commaSeparatedNumbers(size_t count, double lo, double hi, const std::string& unit);
std::vector<double> numberList(const std::string& text);

// The shortest "%g" text of a number, as the messages write bounds.
std::string numberText(double value);

}  // namespace voxen::apps
