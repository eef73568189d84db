#include "drivers/rnn.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

#include "core/anydnn_util.hpp"
#include "core/conv_shape.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kRnnUsage[] =
    "    --cell=lstm|gru|rnn_relu|rnn_tanh --prop=inference|training --direction=left2right|bidirect_concat\n"
    "    --dt=f32|f64|f16|bf16 --mb=N (0: the problem's)\n"
    "    problem: benchdnn's, e.g. l1t50mb32sic512slc512dhc512dic512n\"lstm512\" (sic, slc, dhc, dic default\n"
    "    to each other; dic < dhc: an LSTM with a projection)\n";

namespace {

using Cell = RnnProblem::Cell;

constexpr std::initializer_list<std::pair<const char *, Cell>> kCells = {
    {"lstm", Cell::lstm}, {"gru", Cell::gru}, {"rnn_relu", Cell::rnn_relu}, {"rnn_tanh", Cell::rnn_tanh}};
// benchdnn's --prop names are accepted too.
constexpr std::initializer_list<std::pair<const char *, bool>> kProps = {
    {"inference", false}, {"training", true}, {"FWD_I", false}, {"FWD_D", true}};
// benchdnn calls bidirect_concat "concat".
constexpr std::initializer_list<std::pair<const char *, bool>> kDirections = {
    {"left2right", false}, {"bidirect_concat", true}, {"concat", true}};

using RnnDesc = Owned<anydnnRNNDescriptor_t, anydnnCreateRNNDescriptor, anydnnDestroyRNNDescriptor>;
using RnnDataDesc = Owned<anydnnRNNDataDescriptor_t, anydnnCreateRNNDataDescriptor, anydnnDestroyRNNDataDescriptor>;
using EmptyTensorDesc = Owned<anydnnTensorDescriptor_t, anydnnCreateTensorDescriptor, anydnnDestroyTensorDescriptor>;

anydnnRNNMode_t rnn_mode(Cell c) {
    switch (c) {
    case Cell::lstm: return ANYDNN_LSTM;
    case Cell::gru: return ANYDNN_GRU;
    case Cell::rnn_relu: return ANYDNN_RNN_RELU;
    default: return ANYDNN_RNN_TANH;
    }
}

// A buffer of `bytes` bytes (workspace, reserve and weight space).
Buffer raw(size_t bytes) { return Buffer(ANYDNN_DATA_UINT8, static_cast<int64_t>(bytes)); }

// The dims of a descriptor that anydnnGetRNNWeightParams filled (0 of them
// for a matrix or bias that does not exist).
std::vector<int> dims_of(anydnnTensorDescriptor_t d) {
    anydnnDataType_t dt;
    int n = 0, dims[ANYDNN_DIM_MAX], strides[ANYDNN_DIM_MAX];
    check(anydnnGetTensorNdDescriptor(d, ANYDNN_DIM_MAX, &dt, &n, dims, strides), "anydnnGetTensorNdDescriptor");
    return std::vector<int>(dims, dims + n);
}

// The forward pass as a framework runs it: SEQ_MAJOR_PACKED x and y with
// every sequence t steps long (the same memory as oneDNN's tnc), double
// bias, hx / cx given and hy / cy written. The weights are copied into the
// weight space where anydnnGetRNNWeightParams says, outside the timed run.
class AnydnnRnn final : public AnydnnCase<RnnProblem> {
public:
    AnydnnRnn(const RnnProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnCase(p, h, in), rnn_("anydnnCreateRNNDescriptor"), xd_("anydnnCreateRNNDataDescriptor"),
          yd_("anydnnCreateRNNDataDescriptor"), hd_(p.dt, p.h_dims(), Tag::nchw), cd_(p.dt, p.c_dims(), Tag::nchw),
          y_(p.dt, elements(p.y_dims())), hy_(p.dt, elements(p.h_dims())), cy_(p.dt, elements(p.c_dims())) {
        const anydnnDataType_t math = p.dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT;
        check(anydnnSetRNNDescriptor_v8(rnn_, ANYDNN_RNN_ALGO_STANDARD, rnn_mode(p.cell), ANYDNN_RNN_DOUBLE_BIAS,
                                        p.bidirectional ? ANYDNN_BIDIRECTIONAL : ANYDNN_UNIDIRECTIONAL,
                                        ANYDNN_LINEAR_INPUT, p.dt, math, ANYDNN_DEFAULT_MATH, int32_t(p.slc),
                                        int32_t(p.dhc), int32_t(p.dic), int32_t(p.l), nullptr,
                                        ANYDNN_RNN_PADDED_IO_DISABLED),
              "anydnnSetRNNDescriptor_v8");
        const std::vector<int> lengths(size_t(p.mb), int(p.t));
        check(anydnnSetRNNDataDescriptor(xd_, p.dt, ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, int(p.t), int(p.mb),
                                         int(p.slc), lengths.data(), nullptr),
              "anydnnSetRNNDataDescriptor");
        check(anydnnSetRNNDataDescriptor(yd_, p.dt, ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, int(p.t), int(p.mb),
                                         int(p.dic * p.directions()), lengths.data(), nullptr),
              "anydnnSetRNNDataDescriptor");
        size_t wsize = 0;
        check(anydnnGetRNNWeightSpaceSize(h_, rnn_, &wsize), "anydnnGetRNNWeightSpaceSize");
        weights_ = raw(wsize);
        std::memset(weights_.data(), 0, wsize);
        load_weights();
        size_t work = 0, reserve = 0;
        check(anydnnGetRNNTempSpaceSizes(h_, rnn_, mode(), xd_, &work, &reserve), "anydnnGetRNNTempSpaceSizes");
        work_ = raw(work);
        reserve_ = raw(reserve);
    }

    void run() override {
        const bool lstm = p_.cell == Cell::lstm;
        check(anydnnRNNForward(h_, rnn_, mode(), nullptr, xd_, in_[RnnProblem::kX].data(), yd_, y_.data(), hd_,
                               in_[RnnProblem::kHx].data(), hy_.data(), lstm ? anydnnTensorDescriptor_t(cd_) : nullptr,
                               lstm ? in_[RnnProblem::kCx].data() : nullptr, lstm ? cy_.data() : nullptr,
                               weights_.bytes(), weights_.data(), work_.bytes(), work_.data(), reserve_.bytes(),
                               reserve_.data()),
              "anydnnRNNForward");
    }
    std::vector<Buffer *> outputs() override {
        if (p_.cell == Cell::lstm) return {&y_, &hy_, &cy_};
        return {&y_, &hy_};
    }

private:
    anydnnForwardMode_t mode() const { return p_.training ? ANYDNN_FWD_MODE_TRAINING : ANYDNN_FWD_MODE_INFERENCE; }

    // Copies the canonical matrices and biases to where the library keeps
    // them, checking that it agrees on their shapes.
    void load_weights() {
        const EmptyTensorDesc md("anydnnCreateTensorDescriptor"), bd("anydnnCreateTensorDescriptor");
        const size_t esize = dt_size(p_.dt);
        const char *w = static_cast<const char *>(in_[RnnProblem::kWeights].data());
        const char *b = static_cast<const char *>(in_[RnnProblem::kBiases].data());
        for (int64_t pl = 0; pl < p_.pseudo_layers(); ++pl) {
            for (int lin = 0; lin < p_.matrices(); ++lin) {
                void *maddr = nullptr, *baddr = nullptr;
                check(anydnnGetRNNWeightParams(h_, rnn_, int32_t(pl), weights_.bytes(), weights_.data(), lin, md,
                                               &maddr, bd, &baddr),
                      "anydnnGetRNNWeightParams");
                const RnnProblem::Matrix m = p_.matrix(pl, lin);
                const std::vector<int> want{1, int(m.rows), int(m.cols)};
                const std::string where =
                    "pseudo layer " + std::to_string(pl) + " linLayerID " + std::to_string(lin) + ": ";
                if (maddr == nullptr || dims_of(md) != want)
                    throw LibraryError("anydnnGetRNNWeightParams: " + where + "no " + std::to_string(m.rows) + "x" +
                                       std::to_string(m.cols) + " matrix");
                std::memcpy(maddr, w + m.offset * esize, size_t(m.rows * m.cols) * esize);
                if (lin >= 2 * p_.gates()) continue;  // the projection has no bias
                if (baddr == nullptr || dims_of(bd) != std::vector<int>{1, int(p_.dhc), 1})
                    throw LibraryError("anydnnGetRNNWeightParams: " + where + "no bias of " +
                                       std::to_string(p_.dhc));
                std::memcpy(baddr, b + p_.bias_offset(pl, lin) * esize, size_t(p_.dhc) * esize);
            }
        }
    }

    RnnDesc rnn_;
    RnnDataDesc xd_, yd_;
    TensorDesc hd_, cd_;
    Buffer y_, hy_, cy_, weights_, work_, reserve_;
};

// benchdnn's descriptor: <field><number> (l t mb sic slc dhc dic, any
// order, '_' ignored), then n"name" (or nname).
void parse_descriptor(std::string_view text, RnnProblem *p) {
    const std::string where = "rnn problem '" + std::string(text) + "': ";
    int64_t sic = 0, slc = 0, dhc = 0, dic = 0;
    const std::pair<const char *, int64_t *> fields[] = {{"l", &p->l},    {"t", &p->t},     {"mb", &p->mb},
                                                         {"sic", &sic},   {"slc", &slc},    {"dhc", &dhc},
                                                         {"dic", &dic}};
    size_t i = 0;
    while (i < text.size()) {
        if (text[i] == '_') {
            ++i;
            continue;
        }
        if (text[i] == 'n') {  // no field starts with n: the name
            std::string_view name = text.substr(i + 1);
            if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
            if (name.empty()) throw ParseError(where + "empty name after 'n'");
            p->name = std::string(name);
            break;
        }
        size_t j = i;
        while (j < text.size() && std::islower(static_cast<unsigned char>(text[j]))) ++j;
        const std::string key(text.substr(i, j - i));
        size_t e = j;
        while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e]))) ++e;
        if (key.empty()) throw ParseError(where + "expected a field name at '" + std::string(text.substr(i)) + "'");
        int64_t *slot = nullptr;
        for (const auto &[n, s] : fields)
            if (key == n) slot = s;
        if (slot == nullptr) throw ParseError(where + "unknown field '" + key + "'");
        if (e == j) throw ParseError(where + "field '" + key + "' has no value");
        *slot = parse_int(text.substr(j, e - j), key, 1);
        i = e;
    }
    // benchdnn's defaults: the sizes not given follow sic (or dhc).
    if (sic == 0 && dhc == 0) throw ParseError(where + "no sic or dhc");
    if (dhc == 0) dhc = sic;
    if (dic == 0) dic = sic != 0 ? sic : dhc;
    if (sic == 0) sic = dic;
    if (slc == 0) slc = sic;
    // hx and the recurrent matrices' input are the previous step's output.
    if (sic != dic) throw ParseError(where + "sic " + std::to_string(sic) + " must equal dic " + std::to_string(dic));
    if (dic > dhc) throw ParseError(where + "dic " + std::to_string(dic) + " exceeds dhc " + std::to_string(dhc));
    if (dic < dhc && p->cell != Cell::lstm)
        throw ParseError(where + "dic < dhc (a projection) is for --cell=lstm only");
    p->sic = sic;
    p->slc = slc;
    p->dhc = dhc;
    p->dic = dic;
}

class RnnDriver final : public ProblemDriver<RnnProblem, AnydnnRnn, onednn::rnn_case> {
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key == "cell")
            p_.cell = parse_choice<Cell>(value, option, kCells);
        else if (key == "prop")
            p_.training = parse_choice<bool>(value, option, kProps);
        else if (key == "direction")
            p_.bidirectional = parse_choice<bool>(value, option, kDirections);
        else if (key == "dt")
            p_.dt = parse_float_dt(value, option);
        else if (key == "mb")
            parse_mb(value, option);
        else
            return false;
        return true;
    }

    void describe(RnnProblem &p, std::string_view descriptor) const override {
        parse_descriptor(descriptor, &p);
        override_mb(p.mb);
    }
};

}  // namespace

int RnnProblem::gates() const {
    switch (cell) {
    case Cell::lstm: return 4;
    case Cell::gru: return 3;
    default: return 1;
    }
}

RnnProblem::Matrix RnnProblem::matrix(int64_t pseudo_layer, int lin_layer) const {
    Matrix m;
    for (int64_t pl = 0; pl <= pseudo_layer; ++pl) {
        for (int lin = 0; lin < matrices(); ++lin) {
            if (lin < gates()) m = {m.offset + m.rows * m.cols, dhc, layer_input(pl / directions())};
            else if (lin < 2 * gates()) m = {m.offset + m.rows * m.cols, dhc, dic};
            else m = {m.offset + m.rows * m.cols, dic, dhc};  // the projection
            if (pl == pseudo_layer && lin == lin_layer) return m;
        }
    }
    throw LibraryError("rnn: no matrix " + std::to_string(lin_layer) + " in pseudo layer " +
                       std::to_string(pseudo_layer));
}

int64_t RnnProblem::weight_elements() const {
    const Matrix last = matrix(pseudo_layers() - 1, matrices() - 1);
    return last.offset + last.rows * last.cols;
}

std::string RnnProblem::repro() const {
    std::string s = std::string("--rnn --cell=") + choice_name(cell, kCells) +
                    " --prop=" + (training ? "training" : "inference") +
                    " --direction=" + (bidirectional ? "bidirect_concat" : "left2right") + " --dt=" + dt_name(dt) + " ";
    for (const auto &[field, v] : {std::pair<const char *, int64_t>{"l", l}, {"t", t}, {"mb", mb}, {"sic", sic},
                                   {"slc", slc}, {"dhc", dhc}, {"dic", dic}}) {
        s += field;
        s += std::to_string(v);
    }
    if (!name.empty()) s += "n\"" + name + "\"";
    return s;
}

double RnnProblem::bytes() const {
    // Read the weights, x, hx (and cx) once, write y, hy (and cy) once.
    int64_t n = weight_elements() + bias_elements() + elements(x_dims()) + elements(y_dims()) +
                2 * elements(h_dims());
    if (cell == Cell::lstm) n += 2 * elements(c_dims());
    return double(n) * double(dt_size(dt));
}

double RnnProblem::flops() const {
    // Every matrix is applied once per step and sequence: 2 * rows * cols
    // per vector, input, recurrent and projection alike.
    double per_vector = 0;
    for (int64_t pl = 0; pl < pseudo_layers(); ++pl)
        for (int lin = 0; lin < matrices(); ++lin) {
            const Matrix m = matrix(pl, lin);
            per_vector += 2.0 * double(m.rows) * double(m.cols);
        }
    return per_vector * double(t) * double(mb);
}

int RnnProblem::occurrences() const { return occurrences_in_name(name); }

double RnnProblem::tolerance() const {
    // Each gate is a dot product of layer input + dic terms, summed in a
    // different order by each library; the rounding of every step feeds the
    // next step and layer, so the noise grows with the square root of the
    // whole chain (the sigmoids and tanh contract it, ReLU does not).
    const int64_t length = std::max(slc, dic * directions()) + dic + (projection() ? dhc : 0);
    return storage_tolerance(dt) * std::max(1.0, std::sqrt(double(length) * double(t * l)) / 16);
}

Inputs RnnProblem::make_inputs(anydnnHandle_t, uint64_t seed) const {
    // Weights and biases uniform in +-1/sqrt(dhc), as PyTorch initializes
    // them: the gates stay out of saturation and a ReLU RNN does not blow up
    // over the steps, so the outputs depend on every weight.
    const double k = 1.0 / std::sqrt(double(dhc));
    Inputs in;
    in.emplace_back(dt, elements(x_dims()));
    in.emplace_back(dt, elements(h_dims()));
    in.emplace_back(dt, elements(c_dims()));
    in.emplace_back(dt, weight_elements());
    in.emplace_back(dt, bias_elements());
    in[kX].fill_uniform(seed, -1, 1);
    in[kHx].fill_uniform(seed + 1, -1, 1);
    in[kCx].fill_uniform(seed + 2, -1, 1);
    in[kWeights].fill_uniform(seed + 3, -k, k);
    in[kBiases].fill_uniform(seed + 4, -k, k);
    return in;
}

std::unique_ptr<Driver> make_rnn_driver() { return std::make_unique<RnnDriver>(); }

}  // namespace anydnn_bench
