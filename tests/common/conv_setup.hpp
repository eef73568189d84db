// One forward-convolution test case: a benchdnn shape (tools/bench's
// parser) at a batch size, layout and type, with its descriptors and
// tensors built through the public API.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/test_util.hpp"
#include "core/conv_shape.hpp"
#include "reference/conv_ref.hpp"

namespace anydnn_test {

// WINOGRAD_NONFUSED's error bound in units of eps sum |w||x| (forward) or
// eps sum |w||dy| (backward data), measured maximum about 30:
// ConvWinograd.ErrorBound prints it.
constexpr double kWinogradBound = 64;

enum class Layout { nchw, nhwc, strided };  // strided: NCHW order with gaps (padded())

struct ConvCase {
    anydnn_bench::ConvShape shape;
    int mb = 1;
    Layout layout = Layout::nchw;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    bool flip = false;  // CONVOLUTION mode
    std::string to_string() const;
};

ConvCase make_case(const std::string &benchdnn, int mb, Layout layout, anydnnDataType_t dt = ANYDNN_DATA_FLOAT);

// The shapes of a list in tools/bench/lists/ (comments and blank lines skipped).
std::vector<anydnn_bench::ConvShape> load_conv_list(const std::string &file);

// The elements a test compares: every one of small tensors, else a seeded
// random sample of `samples` (default 1536) plus the first and last (the
// reference is a plain loop).
std::vector<int64_t> sample_elements(int64_t total, int64_t samples = 1536);

// The element offset in t of the row-major linear index lin over t's dims.
int64_t offset_of(const Tensor &t, int64_t lin);

// Unit roundoff of the compute type of dt.
inline double compute_eps(anydnnDataType_t dt) { return dt == ANYDNN_DATA_DOUBLE ? 2.2e-16 : 1.2e-7; }

class ConvSetup {
public:
    explicit ConvSetup(const ConvCase &c);
    ~ConvSetup();
    ConvSetup(const ConvSetup &) = delete;
    ConvSetup &operator=(const ConvSetup &) = delete;

    anydnnConvolutionDescriptor_t conv = nullptr;
    anydnnFilterDescriptor_t filter = nullptr;
    std::unique_ptr<Tensor> x, w, y;
    ref::Conv ref;
    std::vector<int> x_dims, w_dims, y_dims;
    int64_t reduction = 1;  // C/groups * taps: the length of each sum

    // A tensor with y's shape and layout (z of the fused call, dy).
    std::unique_ptr<Tensor> like_y() const;
    // Tensors with x's / w's shape and layout (dx, dw of the backward calls).
    std::unique_ptr<Tensor> like_x() const;
    std::unique_ptr<Tensor> like_w() const;
    // A 1 x K x 1 ... bias.
    std::unique_ptr<Tensor> bias() const;

private:
    Shape shape_of(const std::vector<int> &dims) const;
    Layout layout_;
    anydnnDataType_t dt_;
};

}  // namespace anydnn_test
