// The machine as anydnn sees it: the CPU and the kernels anydnn picks on it,
// the OpenMP runtime and threads, and CUDA when the machine has it (found with
// dlopen, so that a CPU-only machine needs nothing).
#pragma once

#include <string>

#include "api_table.hpp"
#include "report.hpp"

namespace doctor {

// The value of "key: value" in the library's build info; "" if absent.
std::string build_info_line(const std::string &info, const std::string &key);
// api may be nullptr (the library could not be loaded): the CPU is still described.
void check_cpu(const Api *api, Report &report);
void check_cuda(const std::string &build_info, Report &report);

}  // namespace doctor
