// What the doctor found: facts (key: value lines, per section), passes,
// warnings and problems, each problem with the exact fix. Printed for people
// or as JSON; the exit status is 0 only when no problem was found.
#pragma once

#include <string>
#include <vector>

namespace doctor {

enum class Level { info, pass, warning, problem };

struct Finding {
    std::string section;  // "library", "search path", "install", "cpu", "cuda", "self-test"
    Level level = Level::info;
    std::string key;      // what was looked at: "loaded", "conv forward / avx2", a path
    std::string value;    // what it is, or what is wrong with it
    std::string fix;      // for warnings and problems: the command or action that fixes it
};

class Report {
  public:
    void info(const std::string &section, const std::string &key, const std::string &value);
    void pass(const std::string &section, const std::string &key, const std::string &value = "ok");
    void warning(const std::string &section, const std::string &key, const std::string &value,
                 const std::string &fix);
    void problem(const std::string &section, const std::string &key, const std::string &value,
                 const std::string &fix);

    int problems() const;
    int warnings() const;
    void print_text(std::FILE *out) const;
    void print_json(std::FILE *out) const;

  private:
    std::vector<Finding> findings_;
};

}  // namespace doctor
