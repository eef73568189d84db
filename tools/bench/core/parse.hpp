// Parsing of option values and problem descriptors. Every error is a
// ParseError whose message names the option or descriptor field at fault.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

// "16x64x56x56" -> {16, 64, 56, 56}. `field` names the part of the
// descriptor in messages ("src", "dst"); each dimension must be >= 1, there
// must be at most ANYDNN_DIM_MAX of them and at most 2^31 - 1 elements.
Dims parse_dims(std::string_view text, std::string_view field);
// "A:B" -> {A, B} with one name per part, e.g. {"src0", "src1"}; a single
// part gives one entry.
std::vector<Dims> parse_dims_list(std::string_view text, std::initializer_list<const char *> fields);
// ParseError, after `where`, unless `small` (named `small_name`) has as many
// dimensions as `full` and each is `full`'s or 1: binary's broadcast src1,
// reduction's dst.
void check_broadcast(const Dims &full, std::string_view full_name, const Dims &small, std::string_view small_name,
                     const std::string &where);

// Values of --name=value options; `option` is the option's name ("--dt").
anydnnDataType_t parse_dt(std::string_view value, std::string_view option);
// The types of the compute ops: f32|f64|f16|bf16.
anydnnDataType_t parse_float_dt(std::string_view value, std::string_view option);
Tag parse_tag(std::string_view value, std::string_view option);
double parse_double(std::string_view value, std::string_view option);
int64_t parse_int(std::string_view value, std::string_view option, int64_t min_value);

// One of a fixed set of names; the message lists them.
template <class E>
E parse_choice(std::string_view value, std::string_view option,
               std::initializer_list<std::pair<const char *, E>> choices) {
    std::string expected;
    for (const auto &[name, e] : choices) {
        if (value == name) return e;
        if (!expected.empty()) expected += '|';
        expected += name;
    }
    throw ParseError(std::string(option) + ": unknown value '" + std::string(value) + "' (expected " + expected +
                     ")");
}

// The name a choice was parsed from (for reproducers); "?" if absent.
template <class E>
const char *choice_name(E e, std::initializer_list<std::pair<const char *, E>> choices) {
    for (const auto &[name, c] : choices)
        if (c == e) return name;
    return "?";
}

}  // namespace anydnn_bench
