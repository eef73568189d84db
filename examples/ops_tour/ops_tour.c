/* ops_tour: every tensor op, activation, softmax, reduction, convolution and
 * pooling of anydnn on small tensors, printing what each did. Plain C99
 * against the C API; the calls are cuDNN's with the prefix renamed.
 *
 *   ./ops_tour            run on the best ISA level of this CPU
 *   ANYDNN_MAX_ISA=generic ./ops_tour
 */
#include <stdio.h>
#include <stdlib.h>

#include "anydnn/anydnn.h"

#define CHECK(call)                                                               \
    do {                                                                          \
        anydnnStatus_t s_ = (call);                                               \
        if (s_ != ANYDNN_STATUS_SUCCESS) {                                        \
            char msg_[512];                                                       \
            anydnnGetLastErrorString(msg_, sizeof msg_);                          \
            fprintf(stderr, "%s failed: %s\n  %s\n", #call, anydnnGetErrorString(s_), msg_); \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static void print_row(const char *label, const float *v, int n) {
    int i;
    printf("  %-28s", label);
    for (i = 0; i < n; ++i) printf(" %7.3f", v[i]);
    printf("\n");
}

/* A packed 1x1x1xn NCHW float tensor: the tour's values are rows. */
static anydnnTensorDescriptor_t row_desc(int c, int w) {
    anydnnTensorDescriptor_t d;
    CHECK(anydnnCreateTensorDescriptor(&d));
    CHECK(anydnnSetTensor4dDescriptor(d, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 1, c, 1, w));
    return d;
}

int main(void) {
    anydnnHandle_t handle;
    const float one = 1.0f, zero = 0.0f, half = 0.5f;
    float x[8] = {-2.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 2.0f, 3.0f};
    float y[8], dy[8], dx[8], bias[2] = {10.0f, 20.0f}, grid[8];
    int i;

    CHECK(anydnnCreate(&handle));
    printf("anydnn %d.%d.%d (ANYDNN_VERSION %d)\n%s\n", ANYDNN_MAJOR, ANYDNN_MINOR, ANYDNN_PATCHLEVEL,
           (int)anydnnGetVersion(), anydnnGetBuildInfo());

    anydnnTensorDescriptor_t row = row_desc(1, 8);
    print_row("x", x, 8);

    /* ---- Tensor ops ---- */
    printf("tensor ops\n");
    {
        const float seven = 7.0f, three = 3.0f;
        CHECK(anydnnSetTensor(handle, row, y, &seven));
        print_row("SetTensor(7)", y, 8);
        CHECK(anydnnScaleTensor(handle, row, y, &three));
        print_row("ScaleTensor(y, 3)", y, 8);
    }
    {
        /* A 1x2x1x4 tensor plus a per-channel bias (1x2x1x1), broadcast. */
        anydnnTensorDescriptor_t g = row_desc(2, 4), b = row_desc(2, 1);
        for (i = 0; i < 8; ++i) grid[i] = (float)i;
        CHECK(anydnnAddTensor(handle, &one, b, bias, &one, g, grid));
        print_row("AddTensor(bias 10|20)", grid, 8);
        anydnnDestroyTensorDescriptor(g);
        anydnnDestroyTensorDescriptor(b);
    }
    {
        anydnnOpTensorDescriptor_t op;
        CHECK(anydnnCreateOpTensorDescriptor(&op));
        CHECK(anydnnSetOpTensorDescriptor(op, ANYDNN_OP_TENSOR_MAX, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN));
        for (i = 0; i < 8; ++i) dy[i] = 0.25f * (float)(7 - i);
        CHECK(anydnnOpTensor(handle, op, &one, row, x, &one, row, dy, &zero, row, y));
        print_row("OpTensor MAX(x, 1.75-0.25i)", y, 8);
        CHECK(anydnnSetOpTensorDescriptor(op, ANYDNN_OP_TENSOR_MUL, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN));
        CHECK(anydnnOpTensor(handle, op, &one, row, x, &one, row, x, &zero, row, y));
        print_row("OpTensor MUL(x, x)", y, 8);
        anydnnDestroyOpTensorDescriptor(op);
    }
    {
        /* NCHW 1x2x1x4 -> NHWC: the channels interleave in memory. */
        anydnnTensorDescriptor_t nchw = row_desc(2, 4), nhwc;
        CHECK(anydnnCreateTensorDescriptor(&nhwc));
        CHECK(anydnnSetTensor4dDescriptor(nhwc, ANYDNN_TENSOR_NHWC, ANYDNN_DATA_FLOAT, 1, 2, 1, 4));
        for (i = 0; i < 8; ++i) grid[i] = (float)i;
        CHECK(anydnnTransformTensor(handle, &one, nchw, grid, &zero, nhwc, y));
        print_row("TransformTensor NCHW->NHWC", y, 8);
        anydnnDestroyTensorDescriptor(nchw);
        anydnnDestroyTensorDescriptor(nhwc);
    }

    /* ---- Reductions ---- */
    printf("reductions over x\n");
    {
        static const struct { anydnnReduceTensorOp_t op; const char *name; } ops[] = {
            {ANYDNN_REDUCE_TENSOR_ADD, "ADD"},   {ANYDNN_REDUCE_TENSOR_MUL, "MUL"},
            {ANYDNN_REDUCE_TENSOR_MIN, "MIN"},   {ANYDNN_REDUCE_TENSOR_MAX, "MAX"},
            {ANYDNN_REDUCE_TENSOR_AMAX, "AMAX"}, {ANYDNN_REDUCE_TENSOR_AVG, "AVG"},
            {ANYDNN_REDUCE_TENSOR_NORM1, "NORM1"}, {ANYDNN_REDUCE_TENSOR_NORM2, "NORM2"},
            {ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS, "MUL_NO_ZEROS"}};
        anydnnReduceTensorDescriptor_t rd;
        anydnnTensorDescriptor_t scalar = row_desc(1, 1);
        size_t k;
        CHECK(anydnnCreateReduceTensorDescriptor(&rd));
        for (k = 0; k < sizeof ops / sizeof ops[0]; ++k) {
            float r = 0.0f;
            unsigned idx = 0;
            size_t idx_bytes = 0, ws_bytes = 0;
            void *ws = NULL;
            const int with_index = ops[k].op == ANYDNN_REDUCE_TENSOR_MIN || ops[k].op == ANYDNN_REDUCE_TENSOR_MAX ||
                                   ops[k].op == ANYDNN_REDUCE_TENSOR_AMAX;
            CHECK(anydnnSetReduceTensorDescriptor(rd, ops[k].op, ANYDNN_DATA_FLOAT, ANYDNN_NOT_PROPAGATE_NAN,
                                                  with_index ? ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES
                                                             : ANYDNN_REDUCE_TENSOR_NO_INDICES,
                                                  ANYDNN_32BIT_INDICES));
            CHECK(anydnnGetReductionIndicesSize(handle, rd, row, scalar, &idx_bytes));
            CHECK(anydnnGetReductionWorkspaceSize(handle, rd, row, scalar, &ws_bytes));
            CHECK(anydnnMalloc(handle, &ws, ws_bytes));
            CHECK(anydnnReduceTensor(handle, rd, with_index ? &idx : NULL, idx_bytes, ws, ws_bytes, &one, row, x,
                                     &zero, scalar, &r));
            CHECK(anydnnFree(handle, ws));
            if (with_index) printf("  %-28s %7.3f at index %u\n", ops[k].name, r, idx);
            else printf("  %-28s %7.3f\n", ops[k].name, r);
        }
        anydnnDestroyReduceTensorDescriptor(rd);
        anydnnDestroyTensorDescriptor(scalar);
    }

    /* ---- Activations, forward and backward ---- */
    printf("activations: f(x), and f'(x) from the backward with dy = 1\n");
    {
        static const struct { anydnnActivationMode_t mode; const char *name; double coef; } acts[] = {
            {ANYDNN_ACTIVATION_SIGMOID, "SIGMOID", 0},       {ANYDNN_ACTIVATION_RELU, "RELU", 0},
            {ANYDNN_ACTIVATION_TANH, "TANH", 0},             {ANYDNN_ACTIVATION_CLIPPED_RELU, "CLIPPED_RELU(1)", 1},
            {ANYDNN_ACTIVATION_ELU, "ELU(1)", 1},            {ANYDNN_ACTIVATION_IDENTITY, "IDENTITY", 0},
            {ANYDNN_ACTIVATION_SWISH, "SWISH", 0},           {ANYDNN_ACTIVATION_GELU, "GELU", 0},
            {ANYDNN_ACTIVATION_GELU_TANH, "GELU_TANH", 0},   {ANYDNN_ACTIVATION_LEAKY_RELU, "LEAKY_RELU(0.1)", 0.1},
            {ANYDNN_ACTIVATION_HARDSWISH, "HARDSWISH", 0},   {ANYDNN_ACTIVATION_MISH, "MISH", 0},
            {ANYDNN_ACTIVATION_SOFTPLUS, "SOFTPLUS", 0}};
        anydnnActivationDescriptor_t ad;
        size_t k;
        char label[64];
        CHECK(anydnnCreateActivationDescriptor(&ad));
        for (i = 0; i < 8; ++i) dy[i] = 1.0f;
        for (k = 0; k < sizeof acts / sizeof acts[0]; ++k) {
            CHECK(anydnnSetActivationDescriptor(ad, acts[k].mode, ANYDNN_NOT_PROPAGATE_NAN, acts[k].coef));
            CHECK(anydnnActivationForward(handle, ad, &one, row, x, &zero, row, y));
            CHECK(anydnnActivationBackward(handle, ad, &one, row, y, row, dy, row, x, &zero, row, dx));
            print_row(acts[k].name, y, 8);
            snprintf(label, sizeof label, "  d/dx");
            print_row(label, dx, 8);
        }
        anydnnDestroyActivationDescriptor(ad);
    }

    /* ---- Softmax, forward and backward ---- */
    printf("softmax over the 8 channels of x (CHANNEL mode)\n");
    {
        anydnnTensorDescriptor_t ch = row_desc(8, 1);
        CHECK(anydnnSoftmaxForward(handle, ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_MODE_CHANNEL, &one, ch, x, &zero,
                                   ch, y));
        print_row("ACCURATE", y, 8);
        for (i = 0; i < 8; ++i) dy[i] = i == 7 ? 1.0f : 0.0f;
        CHECK(anydnnSoftmaxBackward(handle, ANYDNN_SOFTMAX_ACCURATE, ANYDNN_SOFTMAX_MODE_CHANNEL, &one, ch, y, ch, dy,
                                    &zero, ch, dx));
        print_row("  backward, dy = e7", dx, 8);
        CHECK(anydnnSoftmaxForward(handle, ANYDNN_SOFTMAX_LOG, ANYDNN_SOFTMAX_MODE_CHANNEL, &one, ch, x, &zero, ch,
                                   y));
        print_row("LOG", y, 8);
        /* beta blends into the output: y = 0.5 * softmax(x) + 1 * y */
        CHECK(anydnnSoftmaxForward(handle, ANYDNN_SOFTMAX_FAST, ANYDNN_SOFTMAX_MODE_INSTANCE, &half, ch, x, &one, ch,
                                   y));
        print_row("0.5 * FAST + LOG (beta = 1)", y, 8);
        anydnnDestroyTensorDescriptor(ch);
    }

    /* ---- Convolution: the algorithm from _v7, its workspace, then plain and fused ---- */
    printf("convolution of x with the filter [1 2 1] (1x3, pad 1)\n");
    {
        const float taps[3] = {1.0f, 2.0f, 1.0f}, conv_bias[1] = {-4.0f};
        anydnnFilterDescriptor_t wd;
        anydnnConvolutionDescriptor_t cd;
        anydnnActivationDescriptor_t relu;
        anydnnConvolutionFwdAlgoPerf_t perf;
        anydnnTensorDescriptor_t bd = row_desc(1, 1);
        int returned = 0;
        size_t ws_size = 0;
        void *ws;
        CHECK(anydnnCreateFilterDescriptor(&wd));
        CHECK(anydnnSetFilter4dDescriptor(wd, ANYDNN_DATA_FLOAT, ANYDNN_TENSOR_NCHW, 1, 1, 1, 3));
        CHECK(anydnnCreateConvolutionDescriptor(&cd));
        CHECK(anydnnSetConvolution2dDescriptor(cd, 0, 1, 1, 1, 1, 1, ANYDNN_CROSS_CORRELATION, ANYDNN_DATA_FLOAT));
        CHECK(anydnnGetConvolutionForwardAlgorithm_v7(handle, row, wd, cd, row, 1, &returned, &perf));
        CHECK(anydnnGetConvolutionForwardWorkspaceSize(handle, row, wd, cd, row, perf.algo, &ws_size));
        printf("  _v7 picks algorithm %d, workspace %zu bytes\n", (int)perf.algo, ws_size);
        ws = ws_size > 0 ? malloc(ws_size) : NULL;
        CHECK(anydnnConvolutionForward(handle, &one, row, x, wd, taps, cd, perf.algo, ws, ws_size, &zero, row, y));
        print_row("conv(x)", y, 8);
        /* y = relu(conv(x) + 1 * y + bias): z is y itself, a residual added in place */
        CHECK(anydnnCreateActivationDescriptor(&relu));
        CHECK(anydnnSetActivationDescriptor(relu, ANYDNN_ACTIVATION_RELU, ANYDNN_NOT_PROPAGATE_NAN, 0.0));
        CHECK(anydnnConvolutionBiasActivationForward(handle, &one, row, x, wd, taps, cd, perf.algo, ws, ws_size, &one,
                                                     row, y, bd, conv_bias, relu, row, y));
        print_row("relu(conv(x) + y - 4)", y, 8);
        free(ws);
        anydnnDestroyActivationDescriptor(relu);
        anydnnDestroyTensorDescriptor(bd);
        anydnnDestroyConvolutionDescriptor(cd);
        anydnnDestroyFilterDescriptor(wd);
    }

    /* ---- Pooling: a 1x3 window, stride 2, pad 1 along x's row ---- */
    printf("pooling of x with a 1x3 window (stride 2, pad 1)\n");
    {
        anydnnPoolingDescriptor_t pd;
        anydnnTensorDescriptor_t out;
        int n, c, h, w;
        CHECK(anydnnCreatePoolingDescriptor(&pd));
        CHECK(anydnnSetPooling2dDescriptor(pd, ANYDNN_POOLING_MAX, ANYDNN_NOT_PROPAGATE_NAN, 1, 3, 0, 1, 1, 2));
        CHECK(anydnnGetPooling2dForwardOutputDim(pd, row, &n, &c, &h, &w));
        out = row_desc(c, w);
        CHECK(anydnnPoolingForward(handle, pd, &one, row, x, &zero, out, y));
        print_row("MAX", y, w);
        for (i = 0; i < w; ++i) dy[i] = 1.0f;
        /* each output's gradient goes to its window's max */
        CHECK(anydnnPoolingBackward(handle, pd, &one, out, y, out, dy, row, x, &zero, row, dx));
        print_row("  backward, dy = 1", dx, 8);
        CHECK(anydnnSetPooling2dDescriptor(pd, ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, ANYDNN_NOT_PROPAGATE_NAN,
                                           1, 3, 0, 1, 1, 2));
        CHECK(anydnnPoolingForward(handle, pd, &one, row, x, &zero, out, y));
        print_row("AVERAGE (padding excluded)", y, w);
        anydnnDestroyTensorDescriptor(out);
        anydnnDestroyPoolingDescriptor(pd);
    }

    /* ---- Errors come back as statuses with a message ---- */
    printf("a bad call\n");
    {
        char msg[512];
        anydnnStatus_t s = anydnnSetTensor4dDescriptor(row, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 1, 0, 1, 8);
        anydnnGetLastErrorString(msg, sizeof msg);
        printf("  %s: %s\n", anydnnGetErrorString(s), msg);
    }

    anydnnDestroyTensorDescriptor(row);
    CHECK(anydnnDestroy(handle));
    printf("done\n");
    return 0;
}
