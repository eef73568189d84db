#include "core/logging.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "core/platform.hpp"

namespace anydnn {
namespace {

bool env_on(const char *name) {
    const char *v = std::getenv(name);
    return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

struct Logger {
    std::mutex mutex;
    std::atomic<unsigned> mask{0};
    unsigned env_mask = 0;
    anydnnCallback_t callback = nullptr;
    void *udata = nullptr;
    std::FILE *dest = nullptr;
    bool owns_dest = false;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

    Logger() {
        if (env_on("ANYDNN_LOGERR_DBG")) env_mask |= ANYDNN_SEV_ERROR_EN | (1U << ANYDNN_SEV_FATAL);
        if (env_on("ANYDNN_LOGWARN_DBG")) env_mask |= ANYDNN_SEV_WARNING_EN;
        if (env_on("ANYDNN_LOGINFO_DBG")) env_mask |= ANYDNN_SEV_INFO_EN;
        mask = env_mask;
        dest = stderr;
        const char *d = std::getenv("ANYDNN_LOGDEST_DBG");
        if (d != nullptr && std::strcmp(d, "stdout") == 0) {
            dest = stdout;
        } else if (d != nullptr && d[0] != '\0' && std::strcmp(d, "stderr") != 0) {
            if (std::FILE *f = std::fopen(d, "a")) {
                dest = f;
                owns_dest = true;
            }
        }
    }
    ~Logger() {
        if (owns_dest) std::fclose(dest);
    }
};

Logger &logger() {
    static Logger instance;
    return instance;
}

const char *severity_name(anydnnSeverity_t sev) {
    switch (sev) {
    case ANYDNN_SEV_FATAL: return "FATAL";
    case ANYDNN_SEV_ERROR: return "ERROR";
    case ANYDNN_SEV_WARNING: return "WARNING";
    case ANYDNN_SEV_INFO: return "INFO";
    }
    return "?";
}

}  // namespace

bool log_enabled(anydnnSeverity_t sev) {
    return (logger().mask.load(std::memory_order_relaxed) & (1U << sev)) != 0;
}

void log_message(anydnnSeverity_t sev, anydnnStatus_t status, anydnnHandle_t handle, const char *msg) {
    Logger &lg = logger();
    if (!log_enabled(sev)) return;
    auto now = std::chrono::system_clock::now().time_since_epoch();
    auto usec = std::chrono::duration_cast<std::chrono::microseconds>(now).count();
    anydnnDebug_t dbg{};
    dbg.anydnn_version = ANYDNN_VERSION;
    dbg.anydnnStatus = status;
    dbg.time_sec = static_cast<unsigned>(usec / 1000000);
    dbg.time_usec = static_cast<unsigned>(usec % 1000000);
    dbg.time_delta = static_cast<unsigned>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - lg.start).count());
    dbg.handle = handle;
    dbg.pid = process_id();
    dbg.tid = thread_id();
    std::lock_guard<std::mutex> lock(lg.mutex);
    if (lg.callback != nullptr) {
        lg.callback(sev, lg.udata, &dbg, msg);
        return;
    }
    std::fprintf(lg.dest, "anydnn %s! [pid=%llu tid=%llu t=%u.%06u] %s\n", severity_name(sev), dbg.pid, dbg.tid,
                 dbg.time_sec, dbg.time_usec, msg);
    std::fflush(lg.dest);
}

void set_log_callback(unsigned mask, void *udata, anydnnCallback_t fptr) {
    Logger &lg = logger();
    std::lock_guard<std::mutex> lock(lg.mutex);
    lg.callback = fptr;
    lg.udata = udata;
    lg.mask = fptr != nullptr ? mask : lg.env_mask;
}

void get_log_callback(unsigned *mask, void **udata, anydnnCallback_t *fptr) {
    Logger &lg = logger();
    std::lock_guard<std::mutex> lock(lg.mutex);
    *mask = lg.mask;
    *udata = lg.udata;
    *fptr = lg.callback;
}

}  // namespace anydnn
