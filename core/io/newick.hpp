#pragma once
// Newick trees as plain node arrays. Parsing is iterative (no recursion), so any byte
// sequence is handled in linear time without exhausting the stack.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpurec {

struct NewickNode {
    std::string label;
    std::optional<double> length;
    std::vector<int> children;
    int parent = -1;
    int line = 0; // where the node's label (or its closing parenthesis) starts
    int column = 0;
};

struct NewickTree {
    std::vector<NewickNode> nodes;
    int root = -1;
    std::string source; // file name used in error messages
    int line = 0;       // line on which the tree starts

    bool isLeaf(int node) const { return nodes[node].children.empty(); }
    std::vector<int> leaves() const;    // in left-to-right order
    std::vector<int> postorder() const; // children before parents, left to right
};

// Parses every tree in `text`; `source` names the input in errors. Throws InputError.
std::vector<NewickTree> parseNewick(std::string_view text, const std::string& source);
std::vector<NewickTree> readNewickFile(const std::string& path);

// Throws InputError (with the leaf's position) if two leaves share a label or a leaf is unnamed.
void requireUniqueLeafLabels(const NewickTree& tree);

struct NewickWriteOptions {
    bool lengths = true;
    bool internalLabels = true;
};
std::string writeNewick(const NewickTree& tree, const NewickWriteOptions& options = {});
// Quotes a label when it holds characters that Newick reserves.
std::string quoteNewickLabel(const std::string& label);

} // namespace gpurec
