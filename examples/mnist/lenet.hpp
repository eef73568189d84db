// LeNet-5 as in cuDNN's mnistCUDNN sample, built from anydnn calls only:
//   conv 5x5 (20) -> relu -> max-pool 2x2 -> conv 5x5 (50) -> relu ->
//   max-pool 2x2 -> fully connected 800 -> 500 (a 4x4 convolution) -> relu
//   -> fully connected 500 -> 10 (a 1x1 convolution) -> softmax,
// trained with SGD with momentum; the cross-entropy loss, its gradient, the
// argmax and the weight updates are anydnn tensor ops too.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "anydnn_raii.hpp"
#include "dataset.hpp"

namespace mnist {

// One convolution's weights, gradients and momentum (NCHW filter K x C x R x S).
struct ConvWeights {
    int out_c, in_c, k;
    FilterDescriptor filter;
    Tensor w, bias, dw, dbias, vw, vbias;  // w and bias as 1-row tensors for the tensor ops
    ConvWeights(int out_c, int in_c, int k);
};

// The learned parameters, shared by networks of any batch size.
struct Params {
    ConvWeights conv1{20, 1, 5}, conv2{50, 20, 5}, fc1{500, 50, 4}, fc2{10, 500, 1};
    std::vector<ConvWeights *> all() { return {&conv1, &conv2, &fc1, &fc2}; }

    // He-uniform weights from the seed, zero biases and momentum.
    void init(uint64_t seed);
    // A small binary file: "ANYDNNLENET1", then per layer (conv1, conv2, fc1,
    // fc2) K, C, R, S as little-endian int32, K*C*R*S weights and K biases as
    // little-endian float32. Throws std::runtime_error.
    void save(const std::string &path);
    void load(const std::string &path);
};

class LeNet {
public:
    // A network for batches of `batch` digits on h, with p's weights.
    LeNet(anydnnHandle_t h, Params &p, int batch);
    ~LeNet();
    LeNet(const LeNet &) = delete;
    LeNet &operator=(const LeNet &) = delete;

    int batch() const { return batch_; }
    // Forward pass on batch x 784 pixels; the class probabilities then sit
    // in probabilities().
    void forward(const float *images);
    const std::vector<float> &probabilities() const;
    // The predicted class of each digit (after forward).
    void predict(int *classes);
    // After forward: the mean cross-entropy of the batch against labels,
    // and every parameter's gradient (Params::*.dw, dbias).
    float backward(const uint8_t *labels);
    // w -= lr * v, v = momentum * v + (dw + weight_decay * w).
    void sgd_step(float lr, float momentum, float weight_decay);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    int batch_;
};

}  // namespace mnist
