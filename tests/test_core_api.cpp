// The core API: version, status strings, last-error messages, handles,
// memory, logging callbacks, and tensor / filter descriptors (including a
// fuzz of their setters).
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/test_util.hpp"
#include "core/isa.hpp"

using namespace anydnn_test;

namespace {

TEST(Version, MatchesHeaderAndProperties) {
    EXPECT_EQ(anydnnGetVersion(), static_cast<size_t>(ANYDNN_VERSION));
    int major = -1, minor = -1, patch = -1;
    ASSERT_OK(anydnnGetProperty(ANYDNN_MAJOR_VERSION, &major));
    ASSERT_OK(anydnnGetProperty(ANYDNN_MINOR_VERSION, &minor));
    ASSERT_OK(anydnnGetProperty(ANYDNN_PATCH_LEVEL, &patch));
    EXPECT_EQ(major * 10000 + minor * 100 + patch, ANYDNN_VERSION);
    EXPECT_STATUS(anydnnGetProperty(ANYDNN_MAJOR_VERSION, nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetProperty(static_cast<anydnnLibraryPropertyType_t>(7), &major), ANYDNN_STATUS_BAD_PARAM);
}

TEST(Status, NamesEveryCode) {
    EXPECT_STREQ(anydnnGetErrorString(ANYDNN_STATUS_SUCCESS), "ANYDNN_STATUS_SUCCESS");
    EXPECT_STREQ(anydnnGetErrorString(ANYDNN_STATUS_BAD_PARAM), "ANYDNN_STATUS_BAD_PARAM");
    EXPECT_STREQ(anydnnGetErrorString(ANYDNN_STATUS_VERSION_MISMATCH), "ANYDNN_STATUS_VERSION_MISMATCH");
    for (int s = 0; s <= ANYDNN_STATUS_VERSION_MISMATCH; ++s)
        EXPECT_EQ(std::string(anydnnGetErrorString(static_cast<anydnnStatus_t>(s))).rfind("ANYDNN_STATUS_", 0), 0u);
    EXPECT_NE(anydnnGetErrorString(static_cast<anydnnStatus_t>(999)), nullptr);
}

TEST(LastError, NamesFunctionArgumentAndValueAndClearsOnSuccess) {
    anydnnTensorDescriptor_t d;
    ASSERT_OK(anydnnCreateTensorDescriptor(&d));
    EXPECT_EQ(anydnnSetTensor4dDescriptor(d, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 1, -3, 4, 4),
              ANYDNN_STATUS_BAD_PARAM);
    const std::string msg = last_error();
    EXPECT_NE(msg.find("anydnnSetTensor4dDescriptor"), std::string::npos) << msg;
    EXPECT_NE(msg.find("-3"), std::string::npos) << msg;
    // Truncation keeps a NUL-terminated prefix.
    char small[8];
    anydnnGetLastErrorString(small, sizeof small);
    EXPECT_EQ(std::strlen(small), 7u);
    anydnnGetLastErrorString(nullptr, 10);  // no crash
    ASSERT_OK(anydnnSetTensor4dDescriptor(d, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 1, 3, 4, 4));
    EXPECT_EQ(last_error(), "");
    anydnnDestroyTensorDescriptor(d);
}

TEST(LastError, IsPerThread) {
    EXPECT_EQ(anydnnGetProperty(ANYDNN_MAJOR_VERSION, nullptr), ANYDNN_STATUS_BAD_PARAM);
    std::string other = "unset";
    std::thread t([&] { other = last_error(); });
    t.join();
    EXPECT_EQ(other, "");
    EXPECT_FALSE(last_error().empty());
}

TEST(Handle, CreateDestroyAndArguments) {
    anydnnHandle_t h = nullptr;
    ASSERT_OK(anydnnCreate(&h));
    anydnnStream_t s = reinterpret_cast<anydnnStream_t>(0x1);
    ASSERT_OK(anydnnGetStream(h, &s));
    EXPECT_EQ(s, nullptr);
    ASSERT_OK(anydnnSetStream(h, nullptr));
    EXPECT_STATUS(anydnnSetStream(h, reinterpret_cast<anydnnStream_t>(0x10)), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetStream(h, nullptr), ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnSetNumThreads(h, 1));
    int n = 0;
    ASSERT_OK(anydnnGetNumThreads(h, &n));
    EXPECT_EQ(n, 1);
    EXPECT_STATUS(anydnnSetNumThreads(h, -1), ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnDestroy(h));

    EXPECT_STATUS(anydnnCreate(nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnDestroy(nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnCreateEx(&h, ANYDNN_DEVICE_CUDA, 0), ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnCreateEx(&h, static_cast<anydnnDevice_t>(5), 0), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnCreateEx(&h, ANYDNN_DEVICE_CPU, 3), ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnCreateEx(&h, ANYDNN_DEVICE_CPU, 0));
    anydnnDestroy(h);
}

TEST(Handle, DeviceFromEnvironment) {
    anydnnHandle_t h = nullptr;
    setenv("ANYDNN_DEVICE", "cuda:1", 1);
    EXPECT_STATUS(anydnnCreate(&h), ANYDNN_STATUS_NOT_SUPPORTED);
    setenv("ANYDNN_DEVICE", "tpu", 1);
    EXPECT_STATUS(anydnnCreate(&h), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_NE(last_error().find("tpu"), std::string::npos);
    setenv("ANYDNN_DEVICE", "cpu", 1);
    ASSERT_OK(anydnnCreate(&h));
    anydnnDestroy(h);
    unsetenv("ANYDNN_DEVICE");
}

// A program compiled against other headers learns it from handle creation:
// another major, or a newer minor than the library's, is VERSION_MISMATCH
// with both versions and the library's file in the message.
TEST(Handle, CreateChecksTheHeaderVersion) {
    anydnnHandle_t h = nullptr;
    EXPECT_STATUS(anydnnCreateForVersion(&h, (ANYDNN_MAJOR + 1) * 10000), ANYDNN_STATUS_VERSION_MISMATCH);
    const std::string msg = last_error();
    EXPECT_NE(msg.find("anydnnCreate: the program was compiled against anydnn " + std::to_string(ANYDNN_MAJOR + 1) +
                       ".0.0 headers but loaded the " + std::to_string(ANYDNN_MAJOR) + "."),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("/"), std::string::npos) << "no path of the loaded file: " << msg;
    EXPECT_STATUS(anydnnCreateExForVersion(&h, ANYDNN_DEVICE_CPU, 0, ANYDNN_VERSION + 100),
                  ANYDNN_STATUS_VERSION_MISMATCH);
    EXPECT_NE(last_error().find("at least as new as the headers"), std::string::npos) << last_error();
    EXPECT_STATUS(anydnnCreateForVersion(&h, (ANYDNN_MAJOR - 1) * 10000 + 9900), ANYDNN_STATUS_VERSION_MISMATCH);
    // The same version, and an older patch level of the same minor, are fine;
    // so are the unchecked calls (function pointers, dlsym users).
    ASSERT_OK(anydnnCreateForVersion(&h, ANYDNN_VERSION));
    anydnnDestroy(h);
    ASSERT_OK(anydnnCreateExForVersion(&h, ANYDNN_DEVICE_CPU, 0, ANYDNN_MAJOR * 10000 + ANYDNN_MINOR * 100));
    anydnnDestroy(h);
    anydnnStatus_t (*create)(anydnnHandle_t *) = anydnnCreate;
    ASSERT_OK(create(&h));
    anydnnDestroy(h);
}

TEST(BuildInfo, NamesVersionBackendsAndIsa) {
    const std::string info = anydnnGetBuildInfo();
    EXPECT_NE(info.find("version: 1.0.0"), std::string::npos) << info;
    EXPECT_NE(info.find("backends: cpu"), std::string::npos) << info;
    EXPECT_NE(info.find("cpu isa compiled: generic"), std::string::npos) << info;
    EXPECT_NE(info.find("cpu isa detected:"), std::string::npos) << info;
    EXPECT_NE(info.find("cpu isa supported:"), std::string::npos) << info;
}

// The level handles use is one this build compiled in (ANYDNN_CPU_ISA may
// have left out levels the CPU runs) and one the CPU runs.
TEST(BuildInfo, DetectedIsaIsCompiledAndRunnable) {
    const std::string info = anydnnGetBuildInfo();
    const std::string detected = anydnn::isa_name(anydnn::detected_isa());
    EXPECT_NE(info.find("cpu isa detected: " + detected + "\n"), std::string::npos) << info;
    const size_t compiled = info.find("cpu isa compiled:");
    ASSERT_NE(compiled, std::string::npos) << info;
    const std::string levels = info.substr(compiled, info.find('\n', compiled) - compiled) + " ";
    EXPECT_NE(levels.find(" " + detected + " "), std::string::npos) << info;
    EXPECT_LE(anydnn::detected_isa(), anydnn::cpu_isa());
    EXPECT_LE(static_cast<int>(anydnn::detected_isa()), ANYDNN_MAX_COMPILED_ISA);
}

TEST(Memory, MallocMemcpyFree) {
    Handle h("generic");
    void *p = nullptr, *q = nullptr;
    ASSERT_OK(anydnnMalloc(h, &p, 1000));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
    ASSERT_OK(anydnnMalloc(h, &q, 1000));
    std::memset(p, 7, 1000);
    ASSERT_OK(anydnnMemcpy(h, q, p, 1000, ANYDNN_MEMCPY_HOST_TO_DEVICE));
    EXPECT_EQ(static_cast<unsigned char *>(q)[999], 7);
    EXPECT_STATUS(anydnnMemcpy(h, nullptr, p, 4, ANYDNN_MEMCPY_DEFAULT), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnMemcpy(h, q, p, 4, static_cast<anydnnMemcpyKind_t>(9)), ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnMemcpy(h, nullptr, nullptr, 0, ANYDNN_MEMCPY_DEFAULT));
    ASSERT_OK(anydnnFree(h, p));
    ASSERT_OK(anydnnFree(h, q));
    ASSERT_OK(anydnnFree(h, nullptr));
    void *z = reinterpret_cast<void *>(1);
    ASSERT_OK(anydnnMalloc(h, &z, 0));
    EXPECT_EQ(z, nullptr);
    EXPECT_STATUS(anydnnMalloc(h, nullptr, 8), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnMalloc(h, &z, SIZE_MAX / 2), ANYDNN_STATUS_ALLOC_FAILED);
}

struct Captured {
    std::vector<std::pair<anydnnSeverity_t, std::string>> messages;
    anydnnStatus_t last_status = ANYDNN_STATUS_SUCCESS;
};

void capture(anydnnSeverity_t sev, void *udata, const anydnnDebug_t *dbg, const char *msg) {
    auto *c = static_cast<Captured *>(udata);
    c->messages.emplace_back(sev, msg);
    c->last_status = dbg->anydnnStatus;
}

TEST(Logging, CallbackReceivesErrorsAndApiCalls) {
    Captured c;
    ASSERT_OK(anydnnSetCallback(ANYDNN_SEV_ERROR_EN | ANYDNN_SEV_INFO_EN, &c, capture));
    unsigned mask = 0;
    void *udata = nullptr;
    anydnnCallback_t fptr = nullptr;
    ASSERT_OK(anydnnGetCallback(&mask, &udata, &fptr));
    EXPECT_EQ(mask, ANYDNN_SEV_ERROR_EN | ANYDNN_SEV_INFO_EN);
    EXPECT_EQ(udata, &c);
    EXPECT_EQ(fptr, &capture);
    c.messages.clear();
    EXPECT_EQ(anydnnGetProperty(ANYDNN_MAJOR_VERSION, nullptr), ANYDNN_STATUS_BAD_PARAM);
    anydnnSetCallback(0, nullptr, nullptr);
    ASSERT_EQ(c.messages.size(), 2u);
    EXPECT_EQ(c.messages[0].first, ANYDNN_SEV_INFO);
    EXPECT_EQ(c.messages[0].second, "anydnnGetProperty");
    EXPECT_EQ(c.messages[1].first, ANYDNN_SEV_ERROR);
    EXPECT_NE(c.messages[1].second.find("value is NULL"), std::string::npos);
    EXPECT_EQ(c.last_status, ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetCallback(nullptr, &udata, &fptr), ANYDNN_STATUS_BAD_PARAM);
}

// ---- Tensor descriptors -----------------------------------------------------------------

struct Desc {
    anydnnTensorDescriptor_t d = nullptr;
    Desc() { EXPECT_EQ(anydnnCreateTensorDescriptor(&d), ANYDNN_STATUS_SUCCESS); }
    ~Desc() { anydnnDestroyTensorDescriptor(d); }
};

TEST(TensorDescriptor, Set4dPackedNchwAndNhwc) {
    Desc t;
    ASSERT_OK(anydnnSetTensor4dDescriptor(t.d, ANYDNN_TENSOR_NHWC, ANYDNN_DATA_HALF, 2, 3, 4, 5));
    anydnnDataType_t dt;
    int n, c, h, w, ns, cs, hs, ws;
    ASSERT_OK(anydnnGetTensor4dDescriptor(t.d, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    EXPECT_EQ(dt, ANYDNN_DATA_HALF);
    EXPECT_EQ(std::vector<int>({n, c, h, w, ns, cs, hs, ws}), std::vector<int>({2, 3, 4, 5, 60, 1, 15, 3}));
    size_t bytes = 0;
    ASSERT_OK(anydnnGetTensorSizeInBytes(t.d, &bytes));
    EXPECT_EQ(bytes, 2u * 3 * 4 * 5 * 2);
    ASSERT_OK(anydnnSetTensor4dDescriptor(t.d, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 2, 3, 4, 5));
    ASSERT_OK(anydnnGetTensor4dDescriptor(t.d, &dt, &n, &c, &h, &w, &ns, &cs, &hs, &ws));
    EXPECT_EQ(std::vector<int>({ns, cs, hs, ws}), std::vector<int>({60, 20, 5, 1}));
}

TEST(TensorDescriptor, StridedSizeInBytesIsTheSpan) {
    Desc t;
    ASSERT_OK(anydnnSetTensor4dDescriptorEx(t.d, ANYDNN_DATA_DOUBLE, 2, 3, 4, 5, 100, 30, 6, 1));
    size_t bytes = 0;
    ASSERT_OK(anydnnGetTensorSizeInBytes(t.d, &bytes));
    EXPECT_EQ(bytes, (1u + 100 + 2 * 30 + 3 * 6 + 4) * 8);
}

TEST(TensorDescriptor, NdAndNdEx) {
    Desc t;
    const int dims[5] = {2, 3, 4, 5, 6};
    ASSERT_OK(anydnnSetTensorNdDescriptorEx(t.d, ANYDNN_TENSOR_NHWC, ANYDNN_DATA_BFLOAT16, 5, dims));
    int nd = 0, got[8], strides[8];
    anydnnDataType_t dt;
    ASSERT_OK(anydnnGetTensorNdDescriptor(t.d, 8, &dt, &nd, got, strides));
    EXPECT_EQ(nd, 5);
    EXPECT_EQ(dt, ANYDNN_DATA_BFLOAT16);
    EXPECT_EQ(std::vector<int>(strides, strides + 5), std::vector<int>({360, 1, 90, 18, 3}));
    // Fewer requested dimensions than the descriptor has.
    ASSERT_OK(anydnnGetTensorNdDescriptor(t.d, 2, &dt, &nd, got, strides));
    EXPECT_EQ(nd, 5);
    EXPECT_EQ(got[1], 3);
    EXPECT_STATUS(anydnnGetTensor4dDescriptor(t.d, &dt, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr),
                  ANYDNN_STATUS_BAD_PARAM);
    const int s3[3] = {12, 4, 1}, d3[3] = {2, 3, 4};
    ASSERT_OK(anydnnSetTensorNdDescriptor(t.d, ANYDNN_DATA_INT8, 3, d3, s3));
}

TEST(TensorDescriptor, BadArgumentsAndUnsupported) {
    Desc t;
    const int dims[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, strides[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_STATUS(anydnnCreateTensorDescriptor(nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensor4dDescriptor(nullptr, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 1, 1, 1, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensor4dDescriptor(t.d, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 0, 1, 1, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensor4dDescriptor(t.d, static_cast<anydnnTensorFormat_t>(9), ANYDNN_DATA_FLOAT, 1, 1, 1, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensor4dDescriptor(t.d, ANYDNN_TENSOR_NCHW_VECT_C, ANYDNN_DATA_INT8, 1, 4, 1, 1),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnSetTensor4dDescriptor(t.d, ANYDNN_TENSOR_NCHW, static_cast<anydnnDataType_t>(42), 1, 1, 1, 1),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensor4dDescriptor(t.d, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_INT8x4, 1, 4, 1, 1),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnSetTensor4dDescriptorEx(t.d, ANYDNN_DATA_FLOAT, 1, 2, 3, 4, 24, 12, 4, 0),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensorNdDescriptor(t.d, ANYDNN_DATA_FLOAT, 2, dims, strides), ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnSetTensorNdDescriptor(t.d, ANYDNN_DATA_FLOAT, 9, dims, strides), ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnSetTensorNdDescriptor(t.d, ANYDNN_DATA_FLOAT, 0, dims, strides), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensorNdDescriptor(t.d, ANYDNN_DATA_FLOAT, 4, nullptr, strides), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensorNdDescriptor(t.d, ANYDNN_DATA_FLOAT, 4, dims, nullptr), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetTensor4dDescriptor(t.d, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 65536, 65536, 1, 1),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    // Never set: every use is BAD_PARAM.
    size_t bytes;
    EXPECT_STATUS(anydnnGetTensorSizeInBytes(t.d, &bytes), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnGetTensorSizeInBytes(nullptr, &bytes), ANYDNN_STATUS_BAD_PARAM);
    ASSERT_OK(anydnnDestroyTensorDescriptor(nullptr));
}

// Random arguments to the setters: the status is always one of SUCCESS,
// BAD_PARAM, NOT_SUPPORTED; a success reads back what was set; a failure
// leaves a message and the previous contents.
TEST(TensorDescriptor, SetterFuzz) {
    std::mt19937 g(static_cast<unsigned>(seed()));
    std::uniform_int_distribution<int> small(-2, 9), pick(0, 9);
    auto value = [&] {
        switch (pick(g)) {
        case 0: return INT32_MIN;
        case 1: return INT32_MAX;
        case 2: return 0;
        default: return small(g);
        }
    };
    Desc t;
    ASSERT_OK(anydnnSetTensor4dDescriptor(t.d, ANYDNN_TENSOR_NCHW, ANYDNN_DATA_FLOAT, 1, 2, 3, 4));
    std::vector<int> prev_dims = {1, 2, 3, 4}, prev_strides = {24, 12, 4, 1};
    for (int iter = 0; iter < 20000; ++iter) {
        const int nd = small(g);
        int dims[12], strides[12];
        for (int i = 0; i < 12; ++i) {
            dims[i] = value();
            strides[i] = value();
        }
        const auto dt = static_cast<anydnnDataType_t>(small(g) + 1);
        const anydnnStatus_t s = anydnnSetTensorNdDescriptor(t.d, dt, nd, dims, strides);
        ASSERT_TRUE(s == ANYDNN_STATUS_SUCCESS || s == ANYDNN_STATUS_BAD_PARAM || s == ANYDNN_STATUS_NOT_SUPPORTED);
        ASSERT_EQ(last_error().empty(), s == ANYDNN_STATUS_SUCCESS);
        int got_nd = 0, got_dims[8], got_strides[8];
        anydnnDataType_t got_dt;
        ASSERT_OK(anydnnGetTensorNdDescriptor(t.d, 8, &got_dt, &got_nd, got_dims, got_strides));
        if (s == ANYDNN_STATUS_SUCCESS) {
            ASSERT_EQ(got_nd, nd);
            ASSERT_EQ(std::vector<int>(got_dims, got_dims + nd), std::vector<int>(dims, dims + nd));
            ASSERT_EQ(std::vector<int>(got_strides, got_strides + nd), std::vector<int>(strides, strides + nd));
            prev_dims.assign(dims, dims + nd);
            prev_strides.assign(strides, strides + nd);
        } else {
            ASSERT_EQ(std::vector<int>(got_dims, got_dims + got_nd), prev_dims);
            ASSERT_EQ(std::vector<int>(got_strides, got_strides + got_nd), prev_strides);
        }
    }
}

// ---- Filter descriptors -----------------------------------------------------------------

TEST(FilterDescriptor, SetGetAndSize) {
    anydnnFilterDescriptor_t f;
    ASSERT_OK(anydnnCreateFilterDescriptor(&f));
    ASSERT_OK(anydnnSetFilter4dDescriptor(f, ANYDNN_DATA_FLOAT, ANYDNN_TENSOR_NHWC, 8, 3, 5, 5));
    anydnnDataType_t dt;
    anydnnTensorFormat_t fmt;
    int k, c, h, w;
    ASSERT_OK(anydnnGetFilter4dDescriptor(f, &dt, &fmt, &k, &c, &h, &w));
    EXPECT_EQ(std::vector<int>({k, c, h, w}), std::vector<int>({8, 3, 5, 5}));
    EXPECT_EQ(fmt, ANYDNN_TENSOR_NHWC);
    size_t bytes;
    ASSERT_OK(anydnnGetFilterSizeInBytes(f, &bytes));
    EXPECT_EQ(bytes, 8u * 3 * 5 * 5 * 4);
    const int dims[5] = {4, 2, 3, 3, 3};
    ASSERT_OK(anydnnSetFilterNdDescriptor(f, ANYDNN_DATA_HALF, ANYDNN_TENSOR_NCHW, 5, dims));
    int nd, got[8];
    ASSERT_OK(anydnnGetFilterNdDescriptor(f, 8, &dt, &fmt, &nd, got));
    EXPECT_EQ(nd, 5);
    EXPECT_EQ(std::vector<int>(got, got + 5), std::vector<int>(dims, dims + 5));
    EXPECT_STATUS(anydnnGetFilter4dDescriptor(f, &dt, &fmt, &k, &c, &h, &w), ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetFilter4dDescriptor(f, ANYDNN_DATA_FLOAT, ANYDNN_TENSOR_NCHW, 0, 3, 5, 5),
                  ANYDNN_STATUS_BAD_PARAM);
    EXPECT_STATUS(anydnnSetFilterNdDescriptor(f, ANYDNN_DATA_FLOAT, ANYDNN_TENSOR_NCHW, 10, dims),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(anydnnSetFilter4dDescriptor(f, ANYDNN_DATA_FLOAT, ANYDNN_TENSOR_NCHW_VECT_C, 4, 4, 1, 1),
                  ANYDNN_STATUS_NOT_SUPPORTED);
    anydnnDestroyFilterDescriptor(f);
    anydnnFilterDescriptor_t unset;
    ASSERT_OK(anydnnCreateFilterDescriptor(&unset));
    EXPECT_STATUS(anydnnGetFilterSizeInBytes(unset, &bytes), ANYDNN_STATUS_BAD_PARAM);
    anydnnDestroyFilterDescriptor(unset);
}

}  // namespace
