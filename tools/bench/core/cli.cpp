#include "core/cli.hpp"

#include <fstream>
#include <sstream>

#include "core/parse.hpp"

namespace anydnn_bench {
namespace {

constexpr int kMaxBatchDepth = 8;

class Parser {
public:
    Plan plan;

    void arg(const std::string &a, const std::string &batch_dir, int depth) {
        if (a.rfind("--", 0) != 0) {
            problem(a);
            return;
        }
        const size_t eq = a.find('=');
        const std::string key = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
        const std::string value = eq == std::string::npos ? "" : a.substr(eq + 1);
        const std::string option = "--" + key;
        if (eq == std::string::npos && flag(key)) return;
        if (key == "batch") {
            batch(value, batch_dir, depth);
        } else if (key == "mode") {
            settings_.mode = parse_choice<Mode>(value, option, {{"perf", Mode::perf}, {"corr", Mode::corr},
                                                                {"both", Mode::both}});
        } else if (key == "threads") {
            settings_.threads = static_cast<int>(parse_int(value, option, 1));
        } else if (key == "compare") {
            settings_.compare_onednn = parse_choice<bool>(value, option, {{"onednn", true}, {"none", false}});
        } else if (key == "min-time") {
            settings_.min_time_s = parse_double(value, option);
            if (settings_.min_time_s < 0) throw ParseError(option + ": must be >= 0");
        } else if (key == "min-runs") {
            settings_.min_runs = static_cast<int>(parse_int(value, option, 1));
        } else if (key == "csv") {
            plan.csv_path = value;
        } else if (key == "json") {
            plan.json_path = value;
        } else if (key == "peak-file") {
            plan.peak_file = value;
        } else if (key == "peak-mib") {
            plan.peak_mib = static_cast<int>(parse_int(value, option, 1));
        } else if (eq == std::string::npos) {
            // A driver's option without a value (--fused) gets "".
            if (driver_ == nullptr || !driver_->parse_option(key, "")) throw ParseError("unknown option '" + a + "'");
        } else if (driver_ == nullptr || !driver_->parse_option(key, value)) {
            throw ParseError("unknown option '" + option + "'" +
                             (driver_ ? " for --" + std::string(driver_name_) : " (no driver flag before it)"));
        }
    }

    void finish() {
        plan.peak_threads = settings_.threads;
        plan.peak_min_time_s = settings_.min_time_s;
    }

private:
    RunSettings settings_;
    std::unique_ptr<Driver> driver_;
    const char *driver_name_ = "";

    // Options without a value: driver flags, --reset, --peak, --help.
    bool flag(const std::string &key) {
        for (const DriverInfo &d : drivers()) {
            if (key == d.name) {
                driver_ = d.make();
                driver_name_ = d.name;
                return true;
            }
        }
        if (key == "reset") {
            if (driver_ == nullptr) throw ParseError("--reset: no driver flag before it");
            for (const DriverInfo &d : drivers())
                if (d.name == std::string(driver_name_)) driver_ = d.make();
            return true;
        }
        bool *option = key == "peak" ? &plan.peak : key == "help" ? &plan.help : nullptr;
        if (option != nullptr) *option = true;
        return option != nullptr;
    }

    void problem(const std::string &descriptor) {
        if (driver_ == nullptr)
            throw ParseError("problem '" + descriptor + "' comes before any driver flag (e.g. --eltwise)");
        plan.problems.push_back({settings_, driver_->make_problem(descriptor)});
    }

    void batch(const std::string &path, const std::string &batch_dir, int depth) {
        if (path.empty()) throw ParseError("--batch: no file name");
        if (depth >= kMaxBatchDepth) throw ParseError("--batch=" + path + ": batch files nested too deeply");
        // A relative path is looked up from the working directory, then from
        // the directory of the batch file that names it.
        std::ifstream in(path);
        std::string resolved = path;
        if (!in && !batch_dir.empty() && path[0] != '/') {
            resolved = batch_dir + "/" + path;
            in.open(resolved);
        }
        if (!in) throw ParseError("--batch=" + path + ": cannot open the file");
        const size_t slash = resolved.rfind('/');
        const std::string dir = slash == std::string::npos ? "." : resolved.substr(0, slash);
        std::string line;
        for (int number = 1; std::getline(in, line); ++number) {
            if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
            std::istringstream words(line);
            try {
                for (std::string word; words >> word;) arg(word, dir, depth + 1);
            } catch (const ParseError &e) {
                throw ParseError(resolved + ":" + std::to_string(number) + ": " + e.what());
            }
        }
    }
};

}  // namespace

Plan parse_command_line(std::span<const std::string> args) {
    Parser p;
    for (const std::string &a : args) p.arg(a, "", 0);
    p.finish();
    return std::move(p.plan);
}

std::string usage() {
    std::string s =
        "usage: anydnn-bench [options] --DRIVER [driver options] PROBLEM... [--DRIVER ...]\n"
        "       anydnn-bench --peak [--threads=N]\n"
        "\n"
        "Runs each PROBLEM (a benchdnn-style descriptor such as 16x64x56x56) with the\n"
        "options given before it; options persist until changed, a driver flag resets\n"
        "its driver's options to their defaults.\n"
        "\n"
        "global options:\n"
        "  --mode=perf|corr|both  time the op, check it against a reference, or both\n"
        "  --threads=N            CPU threads for anydnn and oneDNN (default: every CPU)\n"
        "  --compare=onednn|none  also run oneDNN (timing, and the reference of corr mode;\n"
        "                         without it corr compares with anydnn's generic kernels)\n"
        "  --min-time=SEC         measured time per library and problem (default 0.5)\n"
        "  --min-runs=N           and at least N runs (default 10)\n"
        "  --batch=FILE           read options and problems from FILE (# comments)\n"
        "  --csv=FILE --json=FILE also write the results there ('-' is stdout)\n"
        "  --peak                 measure FMA peak and memory bandwidth, cache them\n"
        "  --peak-file=FILE       the cache (default $XDG_CACHE_HOME/anydnn/bench-peak.txt)\n"
        "  --peak-mib=N           MiB per bandwidth array (default 256)\n"
        "  --reset                restore the current driver's default options\n"
        "\n"
        "drivers:\n";
    for (const DriverInfo &d : drivers()) s += std::string("  --") + d.name + "\n" + d.usage;
    return s;
}

}  // namespace anydnn_bench
