#include "common/conv_setup.hpp"

#include <fstream>

namespace anydnn_test {

std::string ConvCase::to_string() const {
    static const char *kLayouts[] = {"nchw", "nhwc", "strided"};
    return anydnn_bench::to_string(shape) + " mb" + std::to_string(mb) + " " + kLayouts[static_cast<int>(layout)] +
           " " + dtype_name(dt) + (flip ? " CONVOLUTION" : "");
}

ConvCase make_case(const std::string &benchdnn, int mb, Layout layout, anydnnDataType_t dt) {
    ConvCase c;
    c.shape = anydnn_bench::parse_conv_shape(benchdnn);
    c.mb = mb;
    c.layout = layout;
    c.dt = dt;
    return c;
}

std::vector<anydnn_bench::ConvShape> load_conv_list(const std::string &file) {
    std::ifstream in(std::string(ANYDNN_SHAPE_LISTS) + "/" + file);
    EXPECT_TRUE(in.good()) << "cannot read " << file;
    std::vector<anydnn_bench::ConvShape> shapes;
    for (std::string line; std::getline(in, line);) {
        const size_t start = line.find_first_not_of(" \t\r");
        if (start == std::string::npos || line[start] == '#') continue;
        shapes.push_back(anydnn_bench::parse_conv_shape(line.substr(start)));
    }
    return shapes;
}

std::vector<int64_t> sample_elements(int64_t total, int64_t samples) {
    std::vector<int64_t> which;
    if (total <= samples + 2) {
        for (int64_t i = 0; i < total; ++i) which.push_back(i);
        return which;
    }
    std::uniform_int_distribution<int64_t> pick(0, total - 1);
    which.push_back(0);
    which.push_back(total - 1);
    for (int64_t i = 0; i < samples; ++i) which.push_back(pick(rng()));
    return which;
}

int64_t offset_of(const Tensor &t, int64_t lin) {
    const std::vector<int> &dims = t.shape().dims;
    std::vector<int> idx(dims.size());
    for (int j = static_cast<int>(dims.size()) - 1; j >= 0; --j) {
        idx[j] = static_cast<int>(lin % dims[j]);
        lin /= dims[j];
    }
    return t.offset(idx);
}

Shape ConvSetup::shape_of(const std::vector<int> &dims) const {
    switch (layout_) {
    case Layout::nhwc: return packed_nhwc(dims);
    case Layout::strided: return padded(dims);
    default: return packed(dims);
    }
}

ConvSetup::ConvSetup(const ConvCase &c) : layout_(c.layout), dt_(c.dt) {
    const anydnn_bench::ConvShape &s = c.shape;
    const int spatial = s.ndims;
    const int first = 3 - spatial;  // ConvShape's index of the first spatial dimension
    x_dims = {c.mb, static_cast<int>(s.ic)};
    w_dims = {static_cast<int>(s.oc), static_cast<int>(s.ic / s.g)};
    ref.groups = static_cast<int>(s.g);
    ref.flip = c.flip;
    reduction = s.ic / s.g;
    for (int j = first; j < 3; ++j) {
        x_dims.push_back(static_cast<int>(s.i[j]));
        w_dims.push_back(static_cast<int>(s.k[j]));
        ref.pad.push_back(static_cast<int>(s.p[j]));
        ref.stride.push_back(static_cast<int>(s.s[j]));
        ref.dil.push_back(static_cast<int>(s.d[j]) + 1);
        reduction *= s.k[j];
    }
    y_dims = ref::conv_output_dims(ref, x_dims, w_dims);
    x = std::make_unique<Tensor>(shape_of(x_dims), c.dt);
    // The filter is KCRS for NCHW tensors and KRSC for NHWC ones (packed: filter descriptors have no strides).
    const bool krsc = c.layout == Layout::nhwc;
    w = like_w();
    y = std::make_unique<Tensor>(shape_of(y_dims), c.dt);
    EXPECT_OK(anydnnCreateFilterDescriptor(&filter));
    EXPECT_OK(anydnnSetFilterNdDescriptor(filter, c.dt, krsc ? ANYDNN_TENSOR_NHWC : ANYDNN_TENSOR_NCHW,
                                          static_cast<int>(w_dims.size()), w_dims.data()));
    EXPECT_OK(anydnnCreateConvolutionDescriptor(&conv));
    EXPECT_OK(anydnnSetConvolutionNdDescriptor(conv, spatial, ref.pad.data(), ref.stride.data(), ref.dil.data(),
                                               c.flip ? ANYDNN_CONVOLUTION : ANYDNN_CROSS_CORRELATION,
                                               c.dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT));
    EXPECT_OK(anydnnSetConvolutionGroupCount(conv, ref.groups));
    x->fill_random();
    w->fill_random();
}

ConvSetup::~ConvSetup() {
    anydnnDestroyConvolutionDescriptor(conv);
    anydnnDestroyFilterDescriptor(filter);
}

std::unique_ptr<Tensor> ConvSetup::like_y() const { return std::make_unique<Tensor>(shape_of(y_dims), dt_); }

std::unique_ptr<Tensor> ConvSetup::like_x() const { return std::make_unique<Tensor>(shape_of(x_dims), dt_); }

std::unique_ptr<Tensor> ConvSetup::like_w() const {
    return std::make_unique<Tensor>(layout_ == Layout::nhwc ? packed_nhwc(w_dims) : packed(w_dims), dt_);
}

std::unique_ptr<Tensor> ConvSetup::bias() const {
    std::vector<int> dims(y_dims.size(), 1);
    dims[1] = y_dims[1];
    return std::make_unique<Tensor>(packed(dims), dt_);
}

}  // namespace anydnn_test
