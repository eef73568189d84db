#include "system.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sched.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <vector>

namespace doctor {
namespace {

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

std::string env_or(const char *name, const char *fallback) {
    const char *v = std::getenv(name);
    return v != nullptr && v[0] != '\0' ? v : fallback;
}


// The OpenMP runtimes mapped into this process.
std::set<std::string> openmp_runtimes() {
    std::set<std::string> found;
    dl_iterate_phdr(
        [](dl_phdr_info *info, size_t, void *data) {
            const std::string name = info->dlpi_name != nullptr ? info->dlpi_name : "";
            for (const char *runtime : {"libgomp", "libiomp", "libomp.so"})
                if (name.find(runtime) != std::string::npos) static_cast<std::set<std::string> *>(data)->insert(name);
            return 0;
        },
        &found);
    return found;
}

}  // namespace

std::string build_info_line(const std::string &info, const std::string &key) {
    const size_t at = info.find(key + ": ");
    if (at == std::string::npos) return "";
    const size_t begin = at + key.size() + 2;
    return info.substr(begin, info.find('\n', begin) - begin);
}

void check_cpu(const Api *api, Report &report) {
    const std::string section = "cpu";
    report.info(section, "model", cpu_model());
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) report.info(section, "cores this process may use",
                                                                 std::to_string(CPU_COUNT(&set)));
    if (api == nullptr) return;
    const std::string info = api->anydnnGetBuildInfo();
    const std::string detected = build_info_line(info, "cpu isa detected");
    report.info(section, "extensions", build_info_line(info, "cpu features"));
    report.info(section, "ISA levels compiled in", build_info_line(info, "cpu isa compiled"));
    // "cpu isa detected" is capped by the levels compiled in; libraries
    // older than the ANYDNN_CPU_ISA option name no "cpu isa supported".
    std::string supported = build_info_line(info, "cpu isa supported");
    if (supported.empty()) supported = detected;
    report.info(section, "best ISA level on this CPU", supported);
    const std::string cap = env_or("ANYDNN_MAX_ISA", "");
    if (!cap.empty() && cap != "generic" && cap != "avx2" && cap != "avx512")
        report.warning(section, "ANYDNN_MAX_ISA", "is \"" + cap + "\", which anydnn ignores",
                       "unset ANYDNN_MAX_ISA or set it to generic, avx2 or avx512");
    const char *order[] = {"generic", "avx2", "avx512"};
    auto rank = [&](const std::string &level) {
        for (int i = 0; i < 3; ++i)
            if (level == order[i]) return i;
        return 3;
    };
    if (rank(supported) > rank(detected))
        report.warning(section, "ISA levels compiled in",
                       "this CPU runs " + supported + " kernels, but this library was built with kernels up to " +
                           detected + " only (ANYDNN_CPU_ISA)",
                       "rebuild anydnn with -DANYDNN_CPU_ISA=ALL (the default) or NATIVE on this machine");
    const std::string used = rank(cap) < rank(detected) ? cap : detected;
    report.info(section, "kernels anydnn uses", used + (rank(cap) < rank(detected) ? " (capped by ANYDNN_MAX_ISA)" : ""));

    anydnnHandle_t handle = nullptr;
    int threads = 0;
    if (api->anydnnCreateForVersion(&handle, ANYDNN_VERSION) == ANYDNN_STATUS_SUCCESS) {
        api->anydnnGetNumThreads(handle, &threads);
        api->anydnnDestroy(handle);
        report.info(section, "threads per call", std::to_string(threads) + " (ANYDNN_NUM_THREADS=" +
                                                     env_or("ANYDNN_NUM_THREADS", "unset") + ", OMP_NUM_THREADS=" +
                                                     env_or("OMP_NUM_THREADS", "unset") + ")");
    }
    const std::set<std::string> runtimes = openmp_runtimes();
    std::string list;
    for (const std::string &r : runtimes) list += (list.empty() ? "" : ", ") + r;
    report.info(section, "OpenMP runtime", list.empty() ? "none loaded" : list);
    if (runtimes.size() > 1)
        report.problem(section, "OpenMP runtimes", "more than one is loaded (" + list +
                                                       "): threads oversubscribe and may deadlock",
                       "build every library of the program with the same OpenMP runtime as anydnn (libgomp)");
}

void check_cuda(const std::string &build_info, Report &report) {
    const std::string section = "cuda";
    const bool backend = build_info_line(build_info, "backends").find("cuda") != std::string::npos;
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (driver == nullptr) {
        report.info(section, "driver", "no NVIDIA driver (libcuda.so.1 not found): CUDA checks skipped");
        return;
    }
    using Init = int (*)(unsigned);
    using GetInt = int (*)(int *);
    using DeviceGet = int (*)(int *, int);
    using GetName = int (*)(char *, int, int);
    using GetAttribute = int (*)(int *, int, int);
    using TotalMem = int (*)(size_t *, int);
    auto sym = [&](const char *name) { return dlsym(driver, name); };
    const auto cu_init = reinterpret_cast<Init>(sym("cuInit"));
    const auto driver_version = reinterpret_cast<GetInt>(sym("cuDriverGetVersion"));
    const auto device_count = reinterpret_cast<GetInt>(sym("cuDeviceGetCount"));
    const auto device_get = reinterpret_cast<DeviceGet>(sym("cuDeviceGet"));
    const auto device_name = reinterpret_cast<GetName>(sym("cuDeviceGetName"));
    const auto attribute = reinterpret_cast<GetAttribute>(sym("cuDeviceGetAttribute"));
    const auto total_mem = reinterpret_cast<TotalMem>(sym("cuDeviceTotalMem_v2"));
    if (!cu_init || !driver_version || !device_count || !device_get || !device_name || !attribute || !total_mem) {
        report.warning(section, "driver", "libcuda.so.1 lacks the driver API's basic calls",
                       "reinstall the NVIDIA driver");
        return;
    }
    int version = 0;
    driver_version(&version);
    report.info(section, "driver", "CUDA " + std::to_string(version / 1000) + "." +
                                       std::to_string(version % 1000 / 10) + " (libcuda.so.1)");
    for (const char *runtime : {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"}) {
        void *rt = dlopen(runtime, RTLD_NOW | RTLD_LOCAL);
        if (rt == nullptr) continue;
        int rt_version = 0;
        if (auto get = reinterpret_cast<GetInt>(dlsym(rt, "cudaRuntimeGetVersion")); get && get(&rt_version) == 0)
            report.info(section, "runtime", "CUDA " + std::to_string(rt_version / 1000) + "." +
                                                std::to_string(rt_version % 1000 / 10) + " (" + runtime + ")");
        break;
    }
    if (const int status = cu_init(0); status != 0) {
        report.warning(section, "cuInit", "failed with CUresult " + std::to_string(status) +
                                              " (no usable GPU, or the driver and kernel module disagree)",
                       "check nvidia-smi; reboot after a driver update");
        return;
    }
    int count = 0;
    device_count(&count);
    for (int i = 0; i < count; ++i) {
        int device = 0, major = 0, minor = 0;
        char name[256] = {};
        size_t bytes = 0;
        device_get(&device, i);
        device_name(name, sizeof name, device);
        attribute(&major, 75, device);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        attribute(&minor, 76, device);  // ..._MINOR
        total_mem(&bytes, device);
        report.info(section, "device " + std::to_string(i),
                    std::string(name) + ", compute capability " + std::to_string(major) + "." +
                        std::to_string(minor) + ", " + std::to_string(bytes >> 20) + " MiB");
    }
    report.info(section, "anydnn's CUDA backend",
                backend ? "compiled in" : "not in this build (CPU only): anydnn runs on the CPU, not on these GPUs");
}

}  // namespace doctor
