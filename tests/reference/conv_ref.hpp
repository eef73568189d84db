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

// Backward data: the raw sums conv^T(dy, w) at the dx elements (row-major
// linear indices over x_dims) listed in `which`: for each, the sum over the
// output channels of its group and the filter taps of dy at the output
// pixel that meets it through the tap, times that filter element.
std::vector<double> conv_backward_data_sums(const Conv &c, const Tensor &dy, const Tensor &w,
                                            const std::vector<int> &x_dims, const std::vector<int64_t> &which);

// Backward filter: the raw sums over images and output pixels of dy times
// the input pixel each filter element meets, at the dw elements (row-major
// over w's dims) listed in `which`.
std::vector<double> conv_backward_filter_sums(const Conv &c, const Tensor &x, const Tensor &dy,
                                              const std::vector<int> &w_dims, const std::vector<int64_t> &which);

}  // namespace anydnn_test::ref
