// benchdnn's convolution problem descriptor, e.g.
// "g1mb1ic64ih56oc64oh56kh3ph1n"res2_branch2b"": groups, minibatch, input
// and output channels, then per spatial dimension (d, h, w) the input,
// output, kernel, stride, padding and dilation sizes, and a name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct ConvShape {
    int64_t g = 1, mb = 1, ic = 0, oc = 0;
    int ndims = 2;  // spatial dimensions: 1 (w), 2 (h, w) or 3 (d, h, w)
    // Index 0 = d, 1 = h, 2 = w; the unused leading ones are 1 (sizes) or 0.
    int64_t i[3] = {1, 1, 1}, o[3] = {1, 1, 1}, k[3] = {1, 1, 1};
    int64_t s[3] = {1, 1, 1}, p[3] = {0, 0, 0};
    int64_t d[3] = {0, 0, 0};  // benchdnn's dilation: 0 is none (the real one is d + 1)
    std::string name;

    // The extent of the dilated kernel: (k - 1) * (d + 1) + 1.
    int64_t kernel_extent(int axis) const { return (k[axis] - 1) * (d[axis] + 1) + 1; }
    // ic / g * kd * kh * kw: the length of each output's dot product.
    int64_t reduction_length() const { return ic / g * k[0] * k[1] * k[2]; }
    int64_t output_spatial() const { return o[0] * o[1] * o[2]; }
    // 2 * mb * oc * od * oh * ow * ic / g * kd * kh * kw.
    double flops() const { return 2.0 * double(mb) * double(oc) * double(output_spatial()) * double(reduction_length()); }
    // The spatial dimensions of anydnn's tensors: 3 (d, h, w), else 2 (a 1-D
    // problem has h = 1).
    int spatial_rank() const { return ndims == 3 ? 3 : 2; }
    // A tensor as anydnn sees it (conv and pool): n x c, then `sizes` (i, o
    // or k) of the spatial_rank() dimensions, (d,) h, w.
    Dims tensor_dims(int64_t n, int64_t c, const int64_t (&sizes)[3]) const;
};

// benchdnn's rules: tokens gN mbN icN ocN and {i,o,k,s,p,d}{d,h,w}N in any
// order, each at most once, then an optional name nNAME (or _nNAME; the name
// may be quoted). Missing w sizes are the h ones, missing h the d ones (a
// 3-D problem: any of id od kd sd pd dd given); missing outputs are computed
// (out = (in + 2p - extent) / s + 1), given ones checked; s = 1, p = 0,
// d = 0, g = 1, mb = 1 by default. Throws ParseError naming the token.
ConvShape parse_conv_shape(std::string_view text);

// The canonical descriptor: g (if > 1), mb, ic, the input sizes, oc, the
// output and kernel sizes, then strides, paddings and dilations that differ
// from their defaults, w only where it differs from h, and n"name".
// parse_conv_shape(to_string(s)) gives s back.
std::string to_string(const ConvShape &s);

// N when `name` ends in "_xN" (benchdnn's lists: the layer occurs N times in
// its network), else 0: the weight of the row in a network total.
int occurrences_in_name(std::string_view name);

}  // namespace anydnn_bench
