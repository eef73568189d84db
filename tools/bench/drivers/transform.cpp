#include "drivers/transform.hpp"

#include <algorithm>

#include "core/anydnn_util.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/problem_driver.hpp"
#include "onednn/adaptor.hpp"

namespace anydnn_bench {

const char kTransformUsage[] =
    "    --sdt=T --ddt=T (--dt=T: both; f32|f64|f16|bf16|s8|u8|s32|s64) --stag=nchw|nhwc\n"
    "    --dtag=nchw|nhwc (--tag: both; default nchw to nhwc); problem: 16x64x56x56\n";

namespace {

class AnydnnTransform final : public AnydnnCase<TransformProblem> {
public:
    AnydnnTransform(const TransformProblem &p, anydnnHandle_t h, const Inputs &in)
        : AnydnnCase(p, h, in), xd_(p.sdt, at_least_4d(p.dims), p.stag), yd_(p.ddt, at_least_4d(p.dims), p.dtag),
          out_(p.ddt, elements(p.dims)) {}

    void run() override {
        // TransformTensor's scalars follow the output type, as cuDNN's.
        const Scalar one(1), zero(0);
        check(anydnnTransformTensor(h_, one.get(p_.ddt), xd_, in_[TransformProblem::kX].data(), zero.get(p_.ddt), yd_,
                                    out_.data()),
              "anydnnTransformTensor");
    }
    std::vector<Buffer *> outputs() override { return {&out_}; }

private:
    TensorDesc xd_, yd_;
    Buffer out_;
};

class TransformDriver final : public ProblemDriver<TransformProblem, AnydnnTransform, onednn::transform_case> {
    bool option(std::string_view key, std::string_view value, const std::string &option) override {
        if (key == "sdt")
            p_.sdt = parse_dt(value, option);
        else if (key == "ddt")
            p_.ddt = parse_dt(value, option);
        else if (key == "dt")
            p_.sdt = p_.ddt = parse_dt(value, option);
        else if (key == "stag")
            p_.stag = parse_tag(value, option);
        else if (key == "dtag")
            p_.dtag = parse_tag(value, option);
        else if (key == "tag")
            p_.stag = p_.dtag = parse_tag(value, option);
        else
            return false;
        return true;
    }

    void describe(TransformProblem &p, std::string_view descriptor) const override {
        p.dims = parse_dims(descriptor, "src");
    }
};

bool is_integer(anydnnDataType_t dt) {
    return dt == ANYDNN_DATA_INT8 || dt == ANYDNN_DATA_UINT8 || dt == ANYDNN_DATA_INT32 || dt == ANYDNN_DATA_INT64;
}

}  // namespace

std::string TransformProblem::repro() const {
    return std::string("--transform --sdt=") + dt_name(sdt) + " --ddt=" + dt_name(ddt) + " --stag=" + tag_name(stag) +
           " --dtag=" + tag_name(dtag) + " " + dims_string(dims);
}

double TransformProblem::bytes() const { return double(elements(dims) * int64_t(dt_size(sdt) + dt_size(ddt))); }

double TransformProblem::tolerance() const {
    // A conversion is one rounding: the coarser of the two types bounds it.
    return std::max(storage_tolerance(sdt), storage_tolerance(ddt));
}

Inputs TransformProblem::make_inputs(anydnnHandle_t, uint64_t seed) const {
    Inputs in;
    in.emplace_back(sdt, elements(dims));
    // Integers and conversions to them get a range that exercises rounding
    // and saturation.
    const double range = is_integer(sdt) || is_integer(ddt) ? 200 : 1;
    in[kX].fill_uniform(seed, -range, range);
    return in;
}

std::unique_ptr<Driver> make_transform_driver() { return std::make_unique<TransformDriver>(); }

}  // namespace anydnn_bench
