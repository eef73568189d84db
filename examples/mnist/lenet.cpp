#include "lenet.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace mnist {

ConvWeights::ConvWeights(int out_c_, int in_c_, int k_)
    : out_c(out_c_), in_c(in_c_), k(k_), w(1, out_c_ * in_c_ * k_ * k_, 1, 1), bias(1, out_c_, 1, 1),
      dw(1, out_c_ * in_c_ * k_ * k_, 1, 1), dbias(1, out_c_, 1, 1), vw(1, out_c_ * in_c_ * k_ * k_, 1, 1),
      vbias(1, out_c_, 1, 1) {
    MNIST_CHECK(anydnnSetFilter4dDescriptor(filter, ANYDNN_DATA_FLOAT, ANYDNN_TENSOR_NCHW, out_c, in_c, k, k));
}

void Params::init(uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (ConvWeights *c : all()) {
        // He initialization for ReLU layers: uniform in +-sqrt(6 / fan_in).
        const float bound = std::sqrt(6.0f / static_cast<float>(c->in_c * c->k * c->k));
        std::uniform_real_distribution<float> u(-bound, bound);
        for (float &v : c->w.data) v = u(rng);
        for (Tensor *t : {&c->bias, &c->vw, &c->vbias}) std::fill(t->data.begin(), t->data.end(), 0.0f);
    }
}

namespace {
constexpr char kMagic[12] = {'A', 'N', 'Y', 'D', 'N', 'N', 'L', 'E', 'N', 'E', 'T', '1'};
}

// Little-endian on the machines anydnn runs on (x86-64): raw bytes.
void Params::save(const std::string &path) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error(path + ": cannot write");
    out.write(kMagic, sizeof kMagic);
    for (ConvWeights *c : all()) {
        const int32_t dims[4] = {c->out_c, c->in_c, c->k, c->k};
        out.write(reinterpret_cast<const char *>(dims), sizeof dims);
        out.write(reinterpret_cast<const char *>(c->w.ptr()), static_cast<std::streamsize>(c->w.data.size() * 4));
        out.write(reinterpret_cast<const char *>(c->bias.ptr()), static_cast<std::streamsize>(c->bias.data.size() * 4));
    }
    if (!out) throw std::runtime_error(path + ": write failed");
}

void Params::load(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open");
    char magic[sizeof kMagic];
    in.read(magic, sizeof magic);
    if (!in || std::memcmp(magic, kMagic, sizeof kMagic) != 0)
        throw std::runtime_error(path + ": not a LeNet weights file (no ANYDNNLENET1 header)");
    for (ConvWeights *c : all()) {
        int32_t dims[4];
        in.read(reinterpret_cast<char *>(dims), sizeof dims);
        if (!in || dims[0] != c->out_c || dims[1] != c->in_c || dims[2] != c->k || dims[3] != c->k)
            throw std::runtime_error(path + ": layer shapes differ from this LeNet");
        in.read(reinterpret_cast<char *>(c->w.ptr()), static_cast<std::streamsize>(c->w.data.size() * 4));
        in.read(reinterpret_cast<char *>(c->bias.ptr()), static_cast<std::streamsize>(c->bias.data.size() * 4));
        if (!in) throw std::runtime_error(path + ": truncated");
    }
}

namespace {

// A convolution with bias and (but for the last layer) ReLU, fused in the
// forward call; y keeps the activation's output, which ReLU's backward
// reads in place of its input (both are > 0 at the same places).
struct ConvLayer {
    ConvWeights &p;
    ConvolutionDescriptor conv;
    ActivationDescriptor act;
    const Tensor &x;
    Tensor y, dy;
    Tensor *dx;  // the gradient of x, or nullptr for the first layer
    anydnnConvolutionFwdAlgo_t fwd_algo{};
    anydnnConvolutionBwdDataAlgo_t data_algo{};
    anydnnConvolutionBwdFilterAlgo_t filter_algo{};
    bool relu;

    ConvLayer(anydnnHandle_t h, ConvWeights &p_, const Tensor &x_, Tensor *dx_, bool relu_)
        : p(p_), x(x_), y(x_.n, p_.out_c, x_.h - p_.k + 1, x_.w - p_.k + 1),
          dy(x_.n, p_.out_c, x_.h - p_.k + 1, x_.w - p_.k + 1), dx(dx_), relu(relu_) {
        MNIST_CHECK(anydnnSetConvolution2dDescriptor(conv, 0, 0, 1, 1, 1, 1, ANYDNN_CROSS_CORRELATION,
                                                     ANYDNN_DATA_FLOAT));
        MNIST_CHECK(anydnnSetActivationDescriptor(act, relu ? ANYDNN_ACTIVATION_RELU : ANYDNN_ACTIVATION_IDENTITY,
                                                  ANYDNN_NOT_PROPAGATE_NAN, 0.0));
        // The heuristics' first choice for each direction.
        int n = 0;
        anydnnConvolutionFwdAlgoPerf_t f;
        MNIST_CHECK(anydnnGetConvolutionForwardAlgorithm_v7(h, x.desc, p.filter, conv, y.desc, 1, &n, &f));
        fwd_algo = f.algo;
        anydnnConvolutionBwdDataAlgoPerf_t d;
        MNIST_CHECK(anydnnGetConvolutionBackwardDataAlgorithm_v7(h, p.filter, y.desc, conv, x.desc, 1, &n, &d));
        data_algo = d.algo;
        anydnnConvolutionBwdFilterAlgoPerf_t w;
        MNIST_CHECK(anydnnGetConvolutionBackwardFilterAlgorithm_v7(h, x.desc, y.desc, conv, p.filter, 1, &n, &w));
        filter_algo = w.algo;
    }

    size_t workspace_bytes(anydnnHandle_t h) const {
        size_t a = 0, b = 0, c = 0;
        MNIST_CHECK(anydnnGetConvolutionForwardWorkspaceSize(h, x.desc, p.filter, conv, y.desc, fwd_algo, &a));
        if (dx != nullptr)
            MNIST_CHECK(anydnnGetConvolutionBackwardDataWorkspaceSize(h, p.filter, y.desc, conv, x.desc, data_algo, &b));
        MNIST_CHECK(anydnnGetConvolutionBackwardFilterWorkspaceSize(h, x.desc, y.desc, conv, p.filter, filter_algo, &c));
        return std::max({a, b, c});
    }

    void forward(anydnnHandle_t h, std::vector<unsigned char> &ws) {
        const float one = 1, zero = 0;
        // y = act(conv(x) + bias); alpha2 = 0, so z (y itself) is not read.
        MNIST_CHECK(anydnnConvolutionBiasActivationForward(h, &one, x.desc, x.ptr(), p.filter, p.w.ptr(), conv,
                                                           fwd_algo, ws.data(), ws.size(), &zero, y.desc, y.ptr(),
                                                           p.bias.desc, p.bias.ptr(), act, y.desc, y.ptr()));
    }

    // dy holds the gradient of y: through the activation (in place), then
    // into the bias, filter and input gradients.
    void backward(anydnnHandle_t h, std::vector<unsigned char> &ws) {
        const float one = 1, zero = 0;
        if (relu)
            MNIST_CHECK(anydnnActivationBackward(h, act, &one, y.desc, y.ptr(), dy.desc, dy.ptr(), y.desc, y.ptr(),
                                                 &zero, dy.desc, dy.ptr()));
        MNIST_CHECK(anydnnConvolutionBackwardBias(h, &one, dy.desc, dy.ptr(), &zero, p.dbias.desc, p.dbias.ptr()));
        MNIST_CHECK(anydnnConvolutionBackwardFilter(h, &one, x.desc, x.ptr(), dy.desc, dy.ptr(), conv, filter_algo,
                                                    ws.data(), ws.size(), &zero, p.filter, p.dw.ptr()));
        if (dx != nullptr)
            MNIST_CHECK(anydnnConvolutionBackwardData(h, &one, p.filter, p.w.ptr(), dy.desc, dy.ptr(), conv,
                                                      data_algo, ws.data(), ws.size(), &zero, dx->desc, dx->ptr()));
    }
};

// 2 x 2 max pooling, stride 2.
struct PoolLayer {
    PoolingDescriptor pool;
    const Tensor &x;
    Tensor y, dy;
    Tensor &dx;

    PoolLayer(const Tensor &x_, Tensor &dx_)
        : x(x_), y(x_.n, x_.c, x_.h / 2, x_.w / 2), dy(x_.n, x_.c, x_.h / 2, x_.w / 2), dx(dx_) {
        MNIST_CHECK(anydnnSetPooling2dDescriptor(pool, ANYDNN_POOLING_MAX, ANYDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    }
    void forward(anydnnHandle_t h) {
        const float one = 1, zero = 0;
        MNIST_CHECK(anydnnPoolingForward(h, pool, &one, x.desc, x.ptr(), &zero, y.desc, y.ptr()));
    }
    void backward(anydnnHandle_t h) {
        const float one = 1, zero = 0;
        MNIST_CHECK(anydnnPoolingBackward(h, pool, &one, y.desc, y.ptr(), dy.desc, dy.ptr(), x.desc, x.ptr(), &zero,
                                          dx.desc, dx.ptr()));
    }
};

}  // namespace

struct LeNet::Impl {
    anydnnHandle_t h;
    Params &p;
    int batch;
    Tensor input;
    // Layers in order; each pool's dx is the dy of the convolution before it.
    std::unique_ptr<ConvLayer> conv1, conv2, fc1, fc2;
    std::unique_ptr<PoolLayer> pool1, pool2;
    Tensor prob, logp, onehot, picked, loss, best;
    std::vector<uint32_t> indices;
    OpTensorDescriptor add, mul;
    ReduceTensorDescriptor sum, argmax;
    std::vector<unsigned char> ws;

    Impl(anydnnHandle_t h_, Params &p_, int b)
        : h(h_), p(p_), batch(b), input(b, 1, kSide, kSide), prob(b, 10, 1, 1), logp(b, 10, 1, 1),
          onehot(b, 10, 1, 1), picked(b, 10, 1, 1), loss(1, 1, 1, 1), best(b, 1, 1, 1), indices(b) {
        conv1 = std::make_unique<ConvLayer>(h, p.conv1, input, nullptr, true);
        pool1 = std::make_unique<PoolLayer>(conv1->y, conv1->dy);
        conv2 = std::make_unique<ConvLayer>(h, p.conv2, pool1->y, &pool1->dy, true);
        pool2 = std::make_unique<PoolLayer>(conv2->y, conv2->dy);
        fc1 = std::make_unique<ConvLayer>(h, p.fc1, pool2->y, &pool2->dy, true);
        fc2 = std::make_unique<ConvLayer>(h, p.fc2, fc1->y, &fc1->dy, false);
        size_t bytes = 0;
        for (ConvLayer *c : {conv1.get(), conv2.get(), fc1.get(), fc2.get()}) bytes = std::max(bytes, c->workspace_bytes(h));
        ws.resize(bytes);
        MNIST_CHECK(anydnnSetOpTensorDescriptor(add, ANYDNN_OP_TENSOR_ADD, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN));
        MNIST_CHECK(anydnnSetOpTensorDescriptor(mul, ANYDNN_OP_TENSOR_MUL, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN));
        MNIST_CHECK(anydnnSetReduceTensorDescriptor(sum, ANYDNN_REDUCE_TENSOR_ADD, ANYDNN_DATA_FLOAT,
                                                    ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_REDUCE_TENSOR_NO_INDICES,
                                                    ANYDNN_32BIT_INDICES));
        MNIST_CHECK(anydnnSetReduceTensorDescriptor(argmax, ANYDNN_REDUCE_TENSOR_MAX, ANYDNN_DATA_FLOAT,
                                                    ANYDNN_NOT_PROPAGATE_NAN, ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES,
                                                    ANYDNN_32BIT_INDICES));
    }
};

LeNet::LeNet(anydnnHandle_t h, Params &p, int batch) : impl_(std::make_unique<Impl>(h, p, batch)), batch_(batch) {}
LeNet::~LeNet() = default;

void LeNet::forward(const float *images) {
    Impl &m = *impl_;
    std::copy(images, images + static_cast<size_t>(batch_) * kPixels, m.input.data.begin());
    m.conv1->forward(m.h, m.ws);
    m.pool1->forward(m.h);
    m.conv2->forward(m.h, m.ws);
    m.pool2->forward(m.h);
    m.fc1->forward(m.h, m.ws);
    m.fc2->forward(m.h, m.ws);
    const float one = 1, zero = 0;
    MNIST_CHECK(anydnnSoftmaxForward(m.h, ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_MODE_CHANNEL, &one, m.fc2->y.desc,
                                     m.fc2->y.ptr(), &zero, m.prob.desc, m.prob.ptr()));
}

const std::vector<float> &LeNet::probabilities() const { return impl_->prob.data; }

void LeNet::predict(int *classes) {
    Impl &m = *impl_;
    const float one = 1, zero = 0;
    MNIST_CHECK(anydnnReduceTensor(m.h, m.argmax, m.indices.data(), m.indices.size() * sizeof(uint32_t), nullptr, 0,
                                   &one, m.fc2->y.desc, m.fc2->y.ptr(), &zero, m.best.desc, m.best.ptr()));
    for (int i = 0; i < batch_; ++i) classes[i] = static_cast<int>(m.indices[i]);
}

float LeNet::backward(const uint8_t *labels) {
    Impl &m = *impl_;
    std::fill(m.onehot.data.begin(), m.onehot.data.end(), 0.0f);
    for (int i = 0; i < batch_; ++i) m.onehot.data[static_cast<size_t>(i) * 10 + labels[i]] = 1.0f;
    const float one = 1, zero = 0, inv = 1.0f / static_cast<float>(batch_), minus_inv = -inv;
    // loss = -(1/B) sum log p[label]
    MNIST_CHECK(anydnnSoftmaxForward(m.h, ANYDNN_SOFTMAX_LOG, ANYDNN_SOFTMAX_MODE_CHANNEL, &one, m.fc2->y.desc,
                                     m.fc2->y.ptr(), &zero, m.logp.desc, m.logp.ptr()));
    MNIST_CHECK(anydnnOpTensor(m.h, m.mul, &one, m.logp.desc, m.logp.ptr(), &one, m.onehot.desc, m.onehot.ptr(),
                               &zero, m.picked.desc, m.picked.ptr()));
    MNIST_CHECK(anydnnReduceTensor(m.h, m.sum, nullptr, 0, nullptr, 0, &minus_inv, m.picked.desc, m.picked.ptr(),
                                   &zero, m.loss.desc, m.loss.ptr()));
    // d loss / d logits = (p - onehot) / B
    MNIST_CHECK(anydnnOpTensor(m.h, m.add, &inv, m.prob.desc, m.prob.ptr(), &minus_inv, m.onehot.desc,
                               m.onehot.ptr(), &zero, m.fc2->dy.desc, m.fc2->dy.ptr()));
    m.fc2->backward(m.h, m.ws);
    m.fc1->backward(m.h, m.ws);
    m.pool2->backward(m.h);
    m.conv2->backward(m.h, m.ws);
    m.pool1->backward(m.h);
    m.conv1->backward(m.h, m.ws);
    return m.loss.data[0];
}

void LeNet::sgd_step(float lr, float momentum, float weight_decay) {
    Impl &m = *impl_;
    const float one = 1, minus_lr = -lr;
    for (ConvWeights *c : m.p.all()) {
        // Weight decay on the weights only, not the biases.
        MNIST_CHECK(anydnnAddTensor(m.h, &weight_decay, c->w.desc, c->w.ptr(), &one, c->dw.desc, c->dw.ptr()));
        const std::pair<Tensor *, Tensor *> pairs[] = {{&c->dw, &c->vw}, {&c->dbias, &c->vbias}};
        Tensor *params[] = {&c->w, &c->bias};
        for (int i = 0; i < 2; ++i) {
            auto [g, v] = pairs[i];
            MNIST_CHECK(anydnnAddTensor(m.h, &one, g->desc, g->ptr(), &momentum, v->desc, v->ptr()));
            MNIST_CHECK(anydnnAddTensor(m.h, &minus_lr, v->desc, v->ptr(), &one, params[i]->desc, params[i]->ptr()));
        }
    }
}

}  // namespace mnist
