#include <cstdio>

#include "report.hpp"

namespace doctor {
namespace {

const char *level_name(Level level) {
    switch (level) {
    case Level::info: return "info";
    case Level::pass: return "pass";
    case Level::warning: return "warning";
    case Level::problem: return "problem";
    }
    return "?";
}

std::string json_string(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

}  // namespace

void Report::info(const std::string &section, const std::string &key, const std::string &value) {
    findings_.push_back({section, Level::info, key, value, ""});
}
void Report::pass(const std::string &section, const std::string &key, const std::string &value) {
    findings_.push_back({section, Level::pass, key, value, ""});
}
void Report::warning(const std::string &section, const std::string &key, const std::string &value,
                     const std::string &fix) {
    findings_.push_back({section, Level::warning, key, value, fix});
}
void Report::problem(const std::string &section, const std::string &key, const std::string &value,
                     const std::string &fix) {
    findings_.push_back({section, Level::problem, key, value, fix});
}

int Report::problems() const {
    int n = 0;
    for (const Finding &f : findings_) n += f.level == Level::problem;
    return n;
}
int Report::warnings() const {
    int n = 0;
    for (const Finding &f : findings_) n += f.level == Level::warning;
    return n;
}

void Report::print_text(std::FILE *out) const {
    std::string section;
    for (const Finding &f : findings_) {
        if (f.section != section) {
            section = f.section;
            std::fprintf(out, "\n== %s\n", section.c_str());
        }
        const char *mark = f.level == Level::pass      ? "  [pass] "
                           : f.level == Level::warning ? "  [warn] "
                           : f.level == Level::problem ? "  [FAIL] "
                                                       : "  ";
        std::fprintf(out, "%s%s: %s\n", mark, f.key.c_str(), f.value.c_str());
    }
    std::fprintf(out, "\n");
    if (problems() == 0 && warnings() == 0) {
        std::fprintf(out, "anydnn-doctor: everything checked passed.\n");
        return;
    }
    std::fprintf(out, "anydnn-doctor: %d problem(s), %d warning(s).\n", problems(), warnings());
    for (Level level : {Level::problem, Level::warning}) {
        for (const Finding &f : findings_) {
            if (f.level != level) continue;
            std::fprintf(out, "%s %s: %s\n    fix: %s\n", level == Level::problem ? "PROBLEM" : "WARNING",
                         f.key.c_str(), f.value.c_str(), f.fix.c_str());
        }
    }
}

void Report::print_json(std::FILE *out) const {
    std::fprintf(out, "{\n  \"ok\": %s,\n  \"problems\": %d,\n  \"warnings\": %d,\n  \"findings\": [",
                 problems() == 0 ? "true" : "false", problems(), warnings());
    const char *sep = "\n";
    for (const Finding &f : findings_) {
        std::fprintf(out, "%s    {\"section\": %s, \"level\": \"%s\", \"key\": %s, \"value\": %s", sep,
                     json_string(f.section).c_str(), level_name(f.level), json_string(f.key).c_str(),
                     json_string(f.value).c_str());
        if (!f.fix.empty()) std::fprintf(out, ", \"fix\": %s", json_string(f.fix).c_str());
        std::fprintf(out, "}");
        sep = ",\n";
    }
    std::fprintf(out, "\n  ]\n}\n");
}

}  // namespace doctor
