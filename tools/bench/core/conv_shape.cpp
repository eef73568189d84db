#include "core/conv_shape.hpp"

#include <cctype>
#include <limits>

namespace anydnn_bench {
namespace {

constexpr const char kAxes[] = "dhw";
constexpr int64_t kMaxValue = std::numeric_limits<int32_t>::max();

// The fields of a descriptor as given: -1 where absent.
struct Given {
    int64_t g = -1, mb = -1, ic = -1, oc = -1;
    int64_t sizes[6][3];  // i, o, k, s, p, d by axis
    Given() {
        for (auto &row : sizes)
            for (int64_t &v : row) v = -1;
    }
};

constexpr const char kGroups[] = "iokspd";

// The slot of a token's prefix ("mb", "ih", ...), nullptr if unknown.
int64_t *slot(Given &g, std::string_view prefix) {
    if (prefix == "g") return &g.g;
    if (prefix == "mb") return &g.mb;
    if (prefix == "ic") return &g.ic;
    if (prefix == "oc") return &g.oc;
    if (prefix.size() != 2) return nullptr;
    const std::string_view groups = kGroups, axes = kAxes;
    const size_t group = groups.find(prefix[0]), axis = axes.find(prefix[1]);
    if (group == std::string_view::npos || axis == std::string_view::npos) return nullptr;
    return &g.sizes[group][axis];
}

std::string quoted(std::string_view s) {
    std::string q(1, '\'');
    q += s;
    q += '\'';
    return q;
}

// r += field + value (appended piecewise: GCC 12 warns, wrongly, of an
// overlapping memcpy on "literal" + std::string at -O3).
void append(std::string &r, const char *field, int64_t value) {
    r += field;
    r += std::to_string(value);
}

}  // namespace

ConvShape parse_conv_shape(std::string_view text) {
    const std::string where = "conv problem " + quoted(text) + ": ";
    if (text.empty()) throw ParseError("conv problem: empty descriptor");
    Given given;
    ConvShape s;
    size_t at = 0;
    while (at < text.size()) {
        // The name: the rest of the descriptor, quotes removed.
        if (text[at] == 'n' || (text[at] == '_' && at + 1 < text.size() && text[at + 1] == 'n')) {
            std::string_view name = text.substr(at + (text[at] == '_' ? 2 : 1));
            if (!name.empty() && name.front() == '"') {
                if (name.size() < 2 || name.back() != '"')
                    throw ParseError(where + "the name " + quoted(name) + " has no closing quote");
                name = name.substr(1, name.size() - 2);
            }
            if (name.empty()) throw ParseError(where + "empty name after 'n'");
            s.name = std::string(name);
            break;
        }
        const size_t begin = at;
        while (at < text.size() && std::islower(static_cast<unsigned char>(text[at])) && text[at] != 'n') ++at;
        const std::string_view prefix = text.substr(begin, at - begin);
        if (prefix.empty()) throw ParseError(where + "expected a field name at " + quoted(text.substr(begin)));
        int64_t *field = slot(given, prefix);
        if (field == nullptr) {
            // "ihoc2": a known field without its number, then the next one.
            for (size_t len : {size_t(2), size_t(1)})
                if (prefix.size() > len && slot(given, prefix.substr(0, len)) != nullptr)
                    throw ParseError(where + std::string(prefix.substr(0, len)) + ": no number after it");
            throw ParseError(where + "unknown field " + quoted(prefix));
        }
        const size_t digits = at;
        int64_t value = 0;
        while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
            value = value * 10 + (text[at] - '0');
            if (value > kMaxValue) throw ParseError(where + std::string(prefix) + ": value too large");
            ++at;
        }
        if (at == digits) throw ParseError(where + std::string(prefix) + ": no number after it");
        if (*field >= 0) throw ParseError(where + std::string(prefix) + " given twice");
        const bool may_be_zero = prefix[0] == 'p' || prefix[0] == 'd';
        if (value < 1 && !(may_be_zero && prefix.size() == 2))
            throw ParseError(where + std::string(prefix) + " is " + std::to_string(value) + " (minimum 1)");
        *field = value;
    }

    if (given.ic < 0) throw ParseError(where + "no ic");
    if (given.oc < 0) throw ParseError(where + "no oc");
    s.g = given.g < 0 ? 1 : given.g;
    s.mb = given.mb < 0 ? 1 : given.mb;
    s.ic = given.ic;
    s.oc = given.oc;
    if (s.ic % s.g != 0) throw ParseError(where + "ic " + std::to_string(s.ic) + " is not a multiple of g " +
                                          std::to_string(s.g));
    if (s.oc % s.g != 0) throw ParseError(where + "oc " + std::to_string(s.oc) + " is not a multiple of g " +
                                          std::to_string(s.g));

    bool any_d = false, any_h = false;
    for (auto &group : given.sizes) {
        any_d |= group[0] >= 0;
        any_h |= group[1] >= 0;
    }
    s.ndims = any_d ? 3 : any_h ? 2 : 1;
    // Each absent size takes its neighbour's: w from h, h from d.
    for (auto &group : given.sizes) {
        if (s.ndims == 3 && group[1] < 0) group[1] = group[0];
        if (s.ndims >= 2 && group[2] < 0) group[2] = group[1];
    }
    enum { kI, kO, kK, kS, kP, kD };
    for (int a = 3 - s.ndims; a < 3; ++a) {
        const std::string axis(1, kAxes[a]);
        if (given.sizes[kI][a] < 0) throw ParseError(where + "no i" + axis);
        s.i[a] = given.sizes[kI][a];
        s.k[a] = given.sizes[kK][a] < 0 ? 1 : given.sizes[kK][a];
        s.s[a] = given.sizes[kS][a] < 0 ? 1 : given.sizes[kS][a];
        s.p[a] = given.sizes[kP][a] < 0 ? 0 : given.sizes[kP][a];
        s.d[a] = given.sizes[kD][a] < 0 ? 0 : given.sizes[kD][a];
        const int64_t span = s.i[a] + 2 * s.p[a] - s.kernel_extent(a);
        if (span < 0)
            throw ParseError(where + "the kernel (k" + axis + " " + std::to_string(s.k[a]) + ", d" + axis + " " +
                             std::to_string(s.d[a]) + ") is larger than the padded input (i" + axis + " " +
                             std::to_string(s.i[a]) + ", p" + axis + " " + std::to_string(s.p[a]) + ")");
        const int64_t out = span / s.s[a] + 1;
        if (given.sizes[kO][a] >= 0 && given.sizes[kO][a] != out)
            throw ParseError(where + "o" + axis + " " + std::to_string(given.sizes[kO][a]) + " disagrees with the " +
                             std::to_string(out) + " that i" + axis + ", k" + axis + ", s" + axis + ", p" + axis +
                             " and d" + axis + " give");
        s.o[a] = out;
    }
    return s;
}

std::string to_string(const ConvShape &s) {
    std::string r;
    if (s.g != 1) append(r, "g", s.g);
    append(r, "mb", s.mb);
    // The sizes of one group ("i", {...}) as the parser fills them in: h
    // only where it differs from d, w only where it differs from h.
    auto sizes = [&](char group, const int64_t *v) {
        std::string t;
        for (int a = 3 - s.ndims; a < 3; ++a) {
            if (a > 3 - s.ndims && v[a] == v[a - 1]) continue;
            t += group;
            t += kAxes[a];
            t += std::to_string(v[a]);
        }
        return t;
    };
    auto differs = [&](const int64_t *v, int64_t def) {
        for (int a = 3 - s.ndims; a < 3; ++a)
            if (v[a] != def) return true;
        return false;
    };
    append(r, "ic", s.ic);
    r += sizes('i', s.i);
    append(r, "oc", s.oc);
    r += sizes('o', s.o);
    r += sizes('k', s.k);
    if (differs(s.s, 1)) r += sizes('s', s.s);
    if (differs(s.p, 0)) r += sizes('p', s.p);
    if (differs(s.d, 0)) r += sizes('d', s.d);
    if (!s.name.empty()) {
        r += "n\"";
        r += s.name;
        r += '"';
    }
    return r;
}

Dims ConvShape::tensor_dims(int64_t n, int64_t c, const int64_t (&sizes)[3]) const {
    Dims dims{n, c};
    for (int a = 3 - spatial_rank(); a < 3; ++a) dims.push_back(sizes[a]);
    return dims;
}

int occurrences_in_name(std::string_view name) {
    const size_t x = name.rfind("_x");
    if (x == std::string_view::npos || x + 2 == name.size() || name.size() - x > 8) return 0;
    int n = 0;
    for (char c : name.substr(x + 2)) {
        if (c < '0' || c > '9') return 0;
        n = n * 10 + (c - '0');
    }
    return n;
}

}  // namespace anydnn_bench
