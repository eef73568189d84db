// The numerical self-test: every primitive of the loaded library, on every
// CPU ISA level it can run here, against plain double-precision loops.
#pragma once

#include "api_table.hpp"
#include "report.hpp"

namespace doctor {

void run_self_test(const Api &api, Report &report);

}  // namespace doctor
