#include "core/platform.hpp"

#include <cstdlib>
#include <functional>
#include <thread>

#if defined(_WIN32)
#include <malloc.h>
#include <process.h>
#else
#include <unistd.h>
#endif

namespace anydnn {

unsigned long long process_id() {
#if defined(_WIN32)
    return static_cast<unsigned long long>(_getpid());
#else
    return static_cast<unsigned long long>(getpid());
#endif
}

unsigned long long thread_id() {
    return static_cast<unsigned long long>(std::hash<std::thread::id>{}(std::this_thread::get_id()));
}

void *aligned_alloc64(std::size_t size) {
#if defined(_WIN32)
    return _aligned_malloc(size, 64);
#else
    void *p = nullptr;
    return posix_memalign(&p, 64, size) == 0 ? p : nullptr;
#endif
}

void aligned_free(void *p) {
#if defined(_WIN32)
    _aligned_free(p);
#else
    std::free(p);
#endif
}

}  // namespace anydnn
