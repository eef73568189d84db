#include "drivers/lrn.hpp"

#include <cctype>
#include <cstdio>

#include "core/anydnn_util.hpp"
#include "core/conv_shape.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kLrnUsage[] =
    "    --dir=fwd|bwd --alg=across --dt=f32|f64|f16|bf16 --tag=nchw|nhwc --mb=N (0: the problem's)\n"
    "    problem: benchdnn's, e.g. mb16ic96ih55ls5alpha0.0001beta0.75k2 (iw = ih unless given)\n";

namespace {

class LrnDesc : public Owned<anydnnLRNDescriptor_t, anydnnCreateLRNDescriptor, anydnnDestroyLRNDescriptor> {
public:
    explicit LrnDesc(const LrnProblem &p) : Owned("anydnnCreateLRNDescriptor") {
        check(anydnnSetLRNDescriptor(*this, unsigned(p.ls), p.alpha, p.beta, p.k), "anydnnSetLRNDescriptor");
    }
};

void forward(anydnnHandle_t h, const LrnDesc &d, const TensorDesc &t, anydnnDataType_t dt, const Buffer &x,
             Buffer &y) {
    const Scalar one(1), zero(0);
    check(anydnnLRNCrossChannelForward(h, d, ANYDNN_LRN_CROSS_CHANNEL_DIM1, one.get(dt), t, x.data(), zero.get(dt),
                                       t, y.data()),
          "anydnnLRNCrossChannelForward");
}

class AnydnnLrn final : public AnydnnCase<LrnProblem> {
public:
    AnydnnLrn(const LrnProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnCase(p, h, in), d_(p), t_(p.dt, p.dims(), p.tag), out_(p.dt, elements(p.dims())) {}

    void run() override {
        if (!p_.backward) return forward(h_, d_, t_, p_.dt, in_[LrnProblem::kX], out_);
        const Scalar one(1), zero(0);
        check(anydnnLRNCrossChannelBackward(h_, d_, ANYDNN_LRN_CROSS_CHANNEL_DIM1, one.get(p_.dt), t_,
                                            in_[LrnProblem::kY].data(), t_, in_[LrnProblem::kDy].data(), t_,
                                            in_[LrnProblem::kX].data(), zero.get(p_.dt), t_, out_.data()),
              "anydnnLRNCrossChannelBackward");
    }
    std::vector<Buffer *> outputs() override { return {&out_}; }

private:
    LrnDesc d_;
    TensorDesc t_;
    Buffer out_;
};

// benchdnn's descriptor: <key><number> fields, '_' ignored, "n<name>" last.
void parse_descriptor(std::string_view text, LrnProblem *p) {
    const std::string where = "lrn problem '" + std::string(text) + "': ";
    size_t i = 0;
    bool has_iw = false;
    while (i < text.size()) {
        if (text[i] == '_') {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
        const std::string key(text.substr(i, j - i));
        if (key == "n" || (key.size() > 1 && key[0] == 'n')) {  // the name
            p->name = std::string(text.substr(i + 1));
            if (p->name.size() >= 2 && p->name.front() == '"' && p->name.back() == '"')  // n"name", as the lists write it
                p->name = p->name.substr(1, p->name.size() - 2);
            break;
        }
        size_t e = j;
        while (e < text.size() && (std::isdigit(static_cast<unsigned char>(text[e])) || text[e] == '.' ||
                                   text[e] == 'e' || text[e] == '-' || text[e] == '+'))
            ++e;
        if (e == j) throw ParseError(where + "field '" + key + "' has no value");
        const std::string_view value = text.substr(j, e - j);
        if (key == "mb") p->mb = parse_int(value, key, 1);
        else if (key == "ic") p->ic = parse_int(value, key, 1);
        else if (key == "id") p->id = parse_int(value, key, 1);
        else if (key == "ih") p->ih = parse_int(value, key, 1);
        else if (key == "iw") {
            p->iw = parse_int(value, key, 1);
            has_iw = true;
        } else if (key == "ls") p->ls = parse_int(value, key, 1);
        else if (key == "alpha") p->alpha = parse_double(value, key);
        else if (key == "beta") p->beta = parse_double(value, key);
        else if (key == "k") p->k = parse_double(value, key);
        else throw ParseError(where + "unknown field '" + key + "'");
        i = e;
    }
    if (!has_iw) p->iw = p->ih;
}

class LrnDriver final : public ProblemDriver<LrnProblem, AnydnnLrn, onednn::lrn_case> {
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key == "dir")
            p_.backward = parse_choice<bool>(value, option, {{"fwd", false}, {"bwd", true}, {"FWD_D", false},
                                                             {"FWD_I", false}, {"BWD_D", true}});
        else if (key == "alg")
            parse_choice<bool>(value, option, {{"across", true}, {"ACROSS", true}});
        else if (key == "mb")
            parse_mb(value, option);
        else
            return parse_dt_or_tag(key, value, option);
        return true;
    }

    void describe(LrnProblem &p, std::string_view descriptor) const override {
        parse_descriptor(descriptor, &p);
        override_mb(p.mb);
    }
};

}  // namespace

Dims LrnProblem::dims() const {
    if (id > 0) return {mb, ic, id, ih, iw};
    return {mb, ic, ih, iw};
}

std::string LrnProblem::repro() const {
    char params[96];
    std::snprintf(params, sizeof params, "ls%lldalpha%gbeta%gk%g", static_cast<long long>(ls), alpha, beta, k);
    std::string s = std::string("--lrn --dir=") + (backward ? "bwd" : "fwd") + " --dt=" + dt_name(dt) +
                    " --tag=" + tag_name(tag) + " mb" + std::to_string(mb) + "ic" + std::to_string(ic);
    if (id > 0) s += "id" + std::to_string(id);
    s += "ih" + std::to_string(ih) + "iw" + std::to_string(iw) + params;
    return name.empty() ? s : s + "_n" + name;
}

double LrnProblem::bytes() const {
    // forward: read x, write y; backward: read x, y and dy, write dx.
    return double(elements(dims()) * int64_t(dt_size(dt))) * (backward ? 4 : 2);
}

int LrnProblem::occurrences() const { return occurrences_in_name(name); }

double LrnProblem::tolerance() const { return storage_tolerance(dt); }

Inputs LrnProblem::make_inputs(anydnnHandle_t h, uint64_t seed) const {
    const int64_t n = elements(dims());
    Inputs in;
    in.emplace_back(dt, n);
    in[kX].fill_uniform(seed, -1, 1);
    if (backward) {
        in.emplace_back(dt, n);
        in.emplace_back(dt, n);
        const LrnDesc d(*this);
        const TensorDesc t(dt, dims(), tag);
        forward(h, d, t, dt, in[kX], in[kY]);
        in[kDy].fill_uniform(seed + 1, -1, 1);
    }
    return in;
}

std::unique_ptr<Driver> make_lrn_driver() { return std::make_unique<LrnDriver>(); }

}  // namespace anydnn_bench
