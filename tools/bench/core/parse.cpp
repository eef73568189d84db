#include "core/parse.hpp"

#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace anydnn_bench {

Dims parse_dims(std::string_view text, std::string_view field) {
    const std::string where = "problem '" + std::string(text) + "': " + std::string(field);
    if (text.empty()) throw ParseError(where + " has no dimensions (expected e.g. 16x64x56x56)");
    Dims dims;
    size_t pos = 0;
    while (true) {
        const size_t x = text.find('x', pos);
        const std::string_view part = text.substr(pos, x == std::string_view::npos ? std::string_view::npos : x - pos);
        const size_t index = dims.size();
        int64_t v = 0;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (part.empty() || ec != std::errc() || end != part.data() + part.size())
            throw ParseError(where + " dimension " + std::to_string(index) + " is '" + std::string(part) +
                             "', not a number");
        if (v < 1)
            throw ParseError(where + " dimension " + std::to_string(index) + " is " + std::to_string(v) +
                             " (each must be >= 1)");
        dims.push_back(v);
        if (x == std::string_view::npos) break;
        pos = x + 1;
    }
    if (dims.size() > ANYDNN_DIM_MAX)
        throw ParseError(where + " has " + std::to_string(dims.size()) + " dimensions (at most " +
                         std::to_string(ANYDNN_DIM_MAX) + ")");
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d > INT_MAX / n)
            throw ParseError(where + " has more than 2^31 - 1 elements");
        n *= d;
    }
    return dims;
}

std::vector<Dims> parse_dims_list(std::string_view text, std::initializer_list<const char *> fields) {
    std::vector<Dims> out;
    size_t pos = 0;
    for (const char *field : fields) {
        const size_t colon = text.find(':', pos);
        out.push_back(parse_dims(text.substr(pos, colon == std::string_view::npos ? colon : colon - pos), field));
        if (colon == std::string_view::npos) return out;
        pos = colon + 1;
    }
    throw ParseError("problem '" + std::string(text) + "': more than " + std::to_string(fields.size()) +
                     " ':'-separated tensors");
}

void check_broadcast(const Dims &full, std::string_view full_name, const Dims &small, std::string_view small_name,
                     const std::string &where) {
    const std::string f(full_name), s(small_name);
    if (small.size() != full.size())
        throw ParseError(where + s + " has " + std::to_string(small.size()) + " dimensions, " + f + " has " +
                         std::to_string(full.size()));
    for (size_t i = 0; i < full.size(); ++i)
        if (small[i] != 1 && small[i] != full[i])
            throw ParseError(where + s + " dimension " + std::to_string(i) + " is " + std::to_string(small[i]) +
                             ", neither 1 nor " + f + "'s " + std::to_string(full[i]));
}

anydnnDataType_t parse_dt(std::string_view value, std::string_view option) {
    return parse_choice<anydnnDataType_t>(value, option,
                                          {{"f32", ANYDNN_DATA_FLOAT},
                                           {"f64", ANYDNN_DATA_DOUBLE},
                                           {"f16", ANYDNN_DATA_HALF},
                                           {"bf16", ANYDNN_DATA_BFLOAT16},
                                           {"s8", ANYDNN_DATA_INT8},
                                           {"u8", ANYDNN_DATA_UINT8},
                                           {"s32", ANYDNN_DATA_INT32},
                                           {"s64", ANYDNN_DATA_INT64}});
}

anydnnDataType_t parse_float_dt(std::string_view value, std::string_view option) {
    return parse_choice<anydnnDataType_t>(value, option,
                                          {{"f32", ANYDNN_DATA_FLOAT},
                                           {"f64", ANYDNN_DATA_DOUBLE},
                                           {"f16", ANYDNN_DATA_HALF},
                                           {"bf16", ANYDNN_DATA_BFLOAT16}});
}

Tag parse_tag(std::string_view value, std::string_view option) {
    // benchdnn's plain tags are accepted as synonyms: abx is channels first,
    // axb channels last.
    return parse_choice<Tag>(value, option,
                             {{"nchw", Tag::nchw},
                              {"nhwc", Tag::nhwc},
                              {"ncdhw", Tag::nchw},
                              {"ndhwc", Tag::nhwc},
                              {"abx", Tag::nchw},
                              {"axb", Tag::nhwc}});
}

double parse_double(std::string_view value, std::string_view option) {
    const std::string s(value);
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
        throw ParseError(std::string(option) + ": '" + s + "' is not a finite number");
    return v;
}

int64_t parse_int(std::string_view value, std::string_view option, int64_t min_value) {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size())
        throw ParseError(std::string(option) + ": '" + std::string(value) + "' is not an integer");
    if (v < min_value)
        throw ParseError(std::string(option) + ": " + std::to_string(v) + " is below the minimum " +
                         std::to_string(min_value));
    return v;
}

}  // namespace anydnn_bench
