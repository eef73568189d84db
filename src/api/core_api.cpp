// C entry points of anydnn_core.h: version, errors, handle, memory, logging.
#include <cstdlib>
#include <cstring>
#include <string>

#include "anydnn/anydnn_core.h"
#include "api/api_call.hpp"
#include "core/handle.hpp"
#include "core/isa.hpp"
#include "core/platform.hpp"

using namespace anydnn;

#define ANYDNN_STRINGIFY_(x) #x
#define ANYDNN_STRINGIFY(x) ANYDNN_STRINGIFY_(x)

extern "C" {

// The version as text at a fixed marker, so that anydnn-doctor can tell the
// version of every libanydnn it finds without loading (or trusting) it.
extern const char anydnn_version_stamp[];
__attribute__((used)) const char anydnn_version_stamp[] = "anydnn-library-version: " ANYDNN_STRINGIFY(ANYDNN_MAJOR) "." ANYDNN_STRINGIFY(
    ANYDNN_MINOR) "." ANYDNN_STRINGIFY(ANYDNN_PATCHLEVEL) "\n";

size_t anydnnGetVersion(void) { return ANYDNN_VERSION; }

anydnnStatus_t anydnnGetProperty(anydnnLibraryPropertyType_t type, int *value) {
    return api_call("anydnnGetProperty", nullptr, [&] {
        if (value == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "value is NULL");
        switch (type) {
        case ANYDNN_MAJOR_VERSION: *value = ANYDNN_MAJOR; break;
        case ANYDNN_MINOR_VERSION: *value = ANYDNN_MINOR; break;
        case ANYDNN_PATCH_LEVEL: *value = ANYDNN_PATCHLEVEL; break;
        default: return fail(ANYDNN_STATUS_BAD_PARAM, "type %d is not an anydnnLibraryPropertyType_t", type);
        }
        return kSuccess;
    });
}

const char *anydnnGetErrorString(anydnnStatus_t status) { return status_name(status); }

void anydnnGetLastErrorString(char *message, size_t max_size) {
    if (message == nullptr || max_size == 0) return;
    const std::string &msg = last_error();
    const size_t n = msg.size() < max_size - 1 ? msg.size() : max_size - 1;
    std::memcpy(message, msg.data(), n);
    message[n] = '\0';
}

const char *anydnnGetBuildInfo(void) {
    static const std::string info = [] {
        std::string s;
        s += "version: " + std::to_string(ANYDNN_MAJOR) + "." + std::to_string(ANYDNN_MINOR) + "." +
             std::to_string(ANYDNN_PATCHLEVEL) + "\n";
        s += "backends: cpu\n";
        s += "cpu isa compiled: " ANYDNN_ISA_LEVELS_STR "\n";
        s += std::string("cpu isa detected: ") + isa_name(detected_isa()) + "\n";
        s += std::string("cpu isa supported: ") + isa_name(cpu_isa()) + "\n";
        s += std::string("cpu features: ") + cpu_features() + "\n";
#if defined(__clang__)
        s += "compiler: clang " __clang_version__ "\n";
#elif defined(__GNUC__)
        s += "compiler: gcc " __VERSION__ "\n";
#elif defined(_MSC_VER)
        s += "compiler: msvc " + std::to_string(_MSC_VER) + "\n";
#endif
        s += "openmp: " + std::to_string(_OPENMP) + "\n";
        return s;
    }();
    return info.c_str();
}

}  // extern "C"

namespace {

// A program built against headerVersion can use this library when the majors
// agree and the library is at least as new in its minor version (minor
// releases only add).
Status check_header_version(size_t header_version) {
    const size_t major = header_version / 10000, minor = header_version / 100 % 100;
    if (major == ANYDNN_MAJOR && minor <= ANYDNN_MINOR) return kSuccess;
    return fail(ANYDNN_STATUS_VERSION_MISMATCH,
                "the program was compiled against anydnn %zu.%zu.%zu headers but loaded the %d.%d.%d library %s; "
                "%s (anydnn-doctor shows every copy on the search path)",
                major, minor, header_version % 100, ANYDNN_MAJOR, ANYDNN_MINOR, ANYDNN_PATCHLEVEL,
                library_path()[0] != '\0' ? library_path() : "(path unknown)",
                major != ANYDNN_MAJOR ? "install the library of the headers' major version or rebuild the program"
                                      : "install a library at least as new as the headers");
}

Status create_from_env(anydnnHandle_t *handle) {
    anydnnDevice_t device = ANYDNN_DEVICE_CPU;
    int ordinal = 0;
    if (const char *env = std::getenv("ANYDNN_DEVICE"); env != nullptr && env[0] != '\0') {
        if (std::strncmp(env, "cuda", 4) == 0 && (env[4] == '\0' || env[4] == ':')) {
            device = ANYDNN_DEVICE_CUDA;
            ordinal = env[4] == ':' ? std::atoi(env + 5) : 0;
        } else if (std::strcmp(env, "cpu") != 0) {
            return fail(ANYDNN_STATUS_BAD_PARAM, "ANYDNN_DEVICE is \"%s\", expected cpu, cuda or cuda:N", env);
        }
    }
    return create_handle(handle, device, ordinal);
}

}  // namespace

extern "C" {

anydnnStatus_t(anydnnCreateEx)(anydnnHandle_t *handle, anydnnDevice_t device, int ordinal) {
    return api_call("anydnnCreateEx", nullptr, [&] { return create_handle(handle, device, ordinal); });
}

anydnnStatus_t(anydnnCreate)(anydnnHandle_t *handle) {
    return api_call("anydnnCreate", nullptr, [&] { return create_from_env(handle); });
}

anydnnStatus_t anydnnCreateExForVersion(anydnnHandle_t *handle, anydnnDevice_t device, int ordinal,
                                        size_t headerVersion) {
    return api_call("anydnnCreateEx", nullptr, [&] {
        ANYDNN_TRY(check_header_version(headerVersion));
        return create_handle(handle, device, ordinal);
    });
}

anydnnStatus_t anydnnCreateForVersion(anydnnHandle_t *handle, size_t headerVersion) {
    return api_call("anydnnCreate", nullptr, [&] {
        ANYDNN_TRY(check_header_version(headerVersion));
        return create_from_env(handle);
    });
}

anydnnStatus_t anydnnDestroy(anydnnHandle_t handle) {
    return api_call("anydnnDestroy", handle, [&] {
        if (handle == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
        delete handle;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetStream(anydnnHandle_t handle, anydnnStream_t stream) {
    return api_call("anydnnSetStream", handle, [&] {
        if (handle == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
        if (handle->device == ANYDNN_DEVICE_CPU && stream != nullptr)
            return fail(ANYDNN_STATUS_BAD_PARAM, "stream is %p; a CPU handle takes only the NULL stream",
                        static_cast<void *>(stream));
        handle->stream = stream;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetStream(anydnnHandle_t handle, anydnnStream_t *stream) {
    return api_call("anydnnGetStream", handle, [&] {
        if (handle == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
        if (stream == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "stream is NULL");
        *stream = handle->stream;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetNumThreads(anydnnHandle_t handle, int num_threads) {
    return api_call("anydnnSetNumThreads", handle, [&] {
        if (handle == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
        if (num_threads < 0) return fail(ANYDNN_STATUS_BAD_PARAM, "num_threads is %d, must be >= 0", num_threads);
        handle->num_threads = num_threads;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetNumThreads(anydnnHandle_t handle, int *num_threads) {
    return api_call("anydnnGetNumThreads", handle, [&] {
        if (handle == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
        if (num_threads == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "num_threads is NULL");
        *num_threads = handle->threads();
        return kSuccess;
    });
}

anydnnStatus_t anydnnMalloc(anydnnHandle_t handle, void **ptr, size_t size) {
    return api_call("anydnnMalloc", handle, [&] {
        if (handle == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
        if (ptr == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "ptr is NULL");
        *ptr = nullptr;
        if (size == 0) return kSuccess;
        void *p = aligned_alloc64(size);
        if (p == nullptr) return fail(ANYDNN_STATUS_ALLOC_FAILED, "size %zu: out of host memory", size);
        *ptr = p;
        return kSuccess;
    });
}

anydnnStatus_t anydnnFree(anydnnHandle_t handle, void *ptr) {
    return api_call("anydnnFree", handle, [&] {
        if (handle == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
        aligned_free(ptr);
        return kSuccess;
    });
}

anydnnStatus_t anydnnMemcpy(anydnnHandle_t handle, void *dst, const void *src, size_t size,
                            anydnnMemcpyKind_t kind) {
    return api_call("anydnnMemcpy", handle, [&] {
        if (handle == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "handle is NULL");
        if (static_cast<unsigned>(kind) > ANYDNN_MEMCPY_DEFAULT)
            return fail(ANYDNN_STATUS_BAD_PARAM, "kind %d is not an anydnnMemcpyKind_t", kind);
        if (size == 0) return kSuccess;
        if (dst == nullptr || src == nullptr)
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL with size %zu", dst == nullptr ? "dst" : "src", size);
        std::memmove(dst, src, size);
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetCallback(unsigned mask, void *udata, anydnnCallback_t fptr) {
    set_log_callback(mask, udata, fptr);
    return api_call("anydnnSetCallback", nullptr, [] { return kSuccess; });
}

anydnnStatus_t anydnnGetCallback(unsigned *mask, void **udata, anydnnCallback_t *fptr) {
    return api_call("anydnnGetCallback", nullptr, [&] {
        if (mask == nullptr || udata == nullptr || fptr == nullptr)
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL",
                        mask == nullptr ? "mask" : udata == nullptr ? "udata" : "fptr");
        get_log_callback(mask, udata, fptr);
        return kSuccess;
    });
}

}  // extern "C"
