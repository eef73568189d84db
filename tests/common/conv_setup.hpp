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

    // A tensor with y's shape and layout (z of the fused call).
    std::unique_ptr<Tensor> like_y() const;
    // A 1 x K x 1 ... bias.
    std::unique_ptr<Tensor> bias() const;

private:
    Shape shape_of(const std::vector<int> &dims) const;
    Layout layout_;
    anydnnDataType_t dt_;
};

}  // namespace anydnn_test
