#pragma once
// Gene -> species name mapping: Phyldog ("species:gene1;gene2") or Treerecs ("gene species") files,
// or the default rule (gene label up to its first '_').
#include <string>
#include <unordered_map>

namespace gpurec {

class GeneMapping {
  public:
    GeneMapping() = default; // the default rule
    static GeneMapping readFile(const std::string& path);
    static GeneMapping parse(const std::string& text, const std::string& source);

    // Empty when the gene is not mapped (only possible with a mapping file).
    std::string speciesOf(const std::string& gene) const;
    bool usesFile() const { return !source_.empty(); }
    // Human-readable description used in errors ("mapping file X (Treerecs format)", "default rule ...").
    std::string describe() const;

  private:
    std::unordered_map<std::string, std::string> map_;
    std::string source_;
    std::string format_;
};

} // namespace gpurec
