// Reference forward convolution: the plain sum over channels and filter taps
// in double, straight from cuDNN's definition, independent of the library.
#pragma once

#include <cstdint>
#include <vector>

#include "common/test_util.hpp"

namespace anydnn_test::ref {

// The convolution descriptor's view: per spatial dimension (as many as x
// has) the padding, stride and real dilation (1 = none).
struct Conv {
    int groups = 1;
    std::vector<int> pad, stride, dil;
    bool flip = false;  // CONVOLUTION mode
};

// The output dimensions of x (N, C, spatial...) with filter dims w (K, C/g, spatial...).
std::vector<int> conv_output_dims(const Conv &c, const std::vector<int> &x, const std::vector<int> &w);

// The raw sums conv(x, w) at the output elements whose row-major linear
// indices (over y_dims) are listed in `which`, in that order.
std::vector<double> conv_forward_sums(const Conv &c, const Tensor &x, const Tensor &w, const std::vector<int> &y_dims,
                                      const std::vector<int64_t> &which);

}  // namespace anydnn_test::ref
