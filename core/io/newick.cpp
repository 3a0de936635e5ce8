#include "io/newick.hpp"

#include "io/input_error.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

namespace gpurec {

namespace {

bool isDelimiter(char c) {
    switch (c) {
    case '(':
    case ')':
    case '[':
    case ']':
    case '\'':
    case ':':
    case ';':
    case ',':
        return true;
    default:
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    }
}

class Cursor {
  public:
    Cursor(std::string_view text, const std::string& source) : text_(text), source_(source) {}

    bool atEnd() const { return pos_ >= text_.size(); }
    char peek() const { return text_[pos_]; }
    int line() const { return line_; }
    int column() const { return column_; }
    std::string_view rest() const { return text_.substr(pos_); }

    void advance() {
        if (text_[pos_] == '\n') {
            ++line_;
            column_ = 1;
        } else {
            ++column_;
        }
        ++pos_;
    }

    [[noreturn]] void fail(const std::string& problem) const {
        throw InputError(source_, line_, column_, problem);
    }
    [[noreturn]] void failAt(int line, int column, const std::string& problem) const {
        throw InputError(source_, line, column, problem);
    }

    // Skips whitespace and [...] comments (NHX comments included).
    void skipBlanks() {
        while (!atEnd()) {
            char c = peek();
            if (c == '[') {
                int l = line_, col = column_;
                while (!atEnd() && peek() != ']')
                    advance();
                if (atEnd()) failAt(l, col, "unterminated comment: '[' without matching ']'");
                advance();
            } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
                advance();
            } else {
                return;
            }
        }
    }

    std::string readLabel() {
        std::string label;
        if (!atEnd() && peek() == '\'') {
            int l = line_, col = column_;
            advance();
            for (;;) {
                if (atEnd()) failAt(l, col, "unterminated quoted label");
                char c = peek();
                advance();
                if (c == '\'') {
                    if (!atEnd() && peek() == '\'') {
                        label += '\'';
                        advance();
                    } else {
                        break;
                    }
                } else {
                    label += c;
                }
            }
            return label;
        }
        while (!atEnd() && !isDelimiter(peek())) {
            label += peek();
            advance();
        }
        return label;
    }

    double readLength() {
        int l = line_, col = column_;
        std::string token;
        while (!atEnd() && !isDelimiter(peek())) {
            token += peek();
            advance();
        }
        if (token.empty()) failAt(l, col, "missing branch length after ':'");
        char* end = nullptr;
        double value = std::strtod(token.c_str(), &end);
        if (end != token.c_str() + token.size()) failAt(l, col, "invalid branch length '" + token + "'");
        if (!std::isfinite(value)) failAt(l, col, "branch length '" + token + "' is not a finite number");
        return value;
    }

  private:
    std::string_view text_;
    const std::string& source_;
    std::size_t pos_ = 0;
    int line_ = 1;
    int column_ = 1;
};

// Label and optional ":length" after a leaf name or a closing parenthesis.
void readNodeSuffix(Cursor& cur, NewickNode& node, bool readLabel) {
    cur.skipBlanks();
    if (readLabel) {
        node.label = cur.readLabel();
        cur.skipBlanks();
    }
    if (!cur.atEnd() && cur.peek() == ':') {
        cur.advance();
        cur.skipBlanks();
        node.length = cur.readLength();
        cur.skipBlanks();
    }
}

NewickTree parseOneTree(Cursor& cur, const std::string& source, std::size_t expectedNodes) {
    NewickTree tree;
    tree.source = source;
    tree.nodes.reserve(expectedNodes); // samples of one family share their size: no regrowth
    tree.line = cur.line();
    std::vector<int> open; // internal nodes whose ')' has not been read
    auto newNode = [&](int parent) {
        int id = static_cast<int>(tree.nodes.size());
        tree.nodes.emplace_back();
        tree.nodes[id].parent = parent;
        tree.nodes[id].line = cur.line();
        tree.nodes[id].column = cur.column();
        if (parent >= 0) tree.nodes[parent].children.push_back(id);
        return id;
    };
    bool expectNode = true;
    for (;;) {
        cur.skipBlanks();
        if (expectNode) {
            int parent = open.empty() ? -1 : open.back();
            if (cur.atEnd())
                cur.fail(open.empty() ? "missing ';' at end of tree" : "unbalanced parentheses: missing ')'");
            if (cur.peek() == '(') {
                int id = newNode(parent);
                open.push_back(id);
                cur.advance();
                continue;
            }
            char c = cur.peek();
            if (c == ')' || c == ',' || c == ';') {
                // An empty leaf, as in "(,A);": keep it and let label checks name it.
                newNode(parent);
            } else if (c == ':' || c == '\'' || !isDelimiter(c)) {
                int id = newNode(parent);
                readNodeSuffix(cur, tree.nodes[id], true);
            } else {
                cur.fail(std::string("unexpected character '") + c + "'");
            }
            expectNode = false;
            continue;
        }
        if (cur.atEnd())
            cur.fail(open.empty() ? "missing ';' at end of tree" : "unbalanced parentheses: missing ')'");
        char c = cur.peek();
        if (c == ',') {
            if (open.empty()) cur.fail("',' outside parentheses");
            cur.advance();
            expectNode = true;
        } else if (c == ')') {
            if (open.empty()) cur.fail("unbalanced parentheses: ')' without matching '('");
            int id = open.back();
            open.pop_back();
            tree.nodes[id].line = cur.line();
            tree.nodes[id].column = cur.column();
            cur.advance();
            readNodeSuffix(cur, tree.nodes[id], true);
        } else if (c == ';') {
            if (!open.empty()) cur.fail("unbalanced parentheses: missing ')' before ';'");
            cur.advance();
            tree.root = 0;
            return tree;
        } else {
            cur.fail(std::string("unexpected character '") + c + "' after a node (expected ',', ')' or ';')");
        }
    }
}

} // namespace

std::vector<int> NewickTree::postorder() const {
    std::vector<int> order;
    if (root < 0) return order;
    order.reserve(nodes.size());
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < nodes[node].children.size()) {
            int child = nodes[node].children[next++];
            stack.emplace_back(child, 0);
        } else {
            order.push_back(node);
            stack.pop_back();
        }
    }
    return order;
}

std::vector<int> NewickTree::leaves() const {
    std::vector<int> out;
    for (int n : postorder())
        if (isLeaf(n)) out.push_back(n);
    return out;
}

std::vector<NewickTree> parseNewick(std::string_view text, const std::string& source) {
    Cursor cur(text, source);
    std::vector<NewickTree> trees;
    for (;;) {
        cur.skipBlanks();
        if (cur.atEnd()) break;
        // Text with no ';' left that does not open a tree cannot be a further tree: it is junk
        // after the last one (a tree cut short still gets the message of what it lacks).
        if (!trees.empty() && cur.peek() != '(' && cur.rest().find(';') == std::string_view::npos) {
            std::string_view rest = cur.rest();
            rest = rest.substr(0, rest.find_last_not_of(" \t\r\n\f\v") + 1);
            std::string shown(rest.substr(0, std::min(rest.find('\n'), std::size_t(20))));
            cur.fail("unexpected text after ';': '" + shown + (shown.size() < rest.size() ? "...'" : "'") +
                     " (a further tree must end with ';')");
        }
        trees.push_back(parseOneTree(cur, source, trees.empty() ? 0 : trees.back().nodes.size()));
    }
    if (trees.empty()) throw InputError(source, 0, 0, "no tree found (empty input)");
    return trees;
}

std::vector<NewickTree> readNewickFile(const std::string& path) {
    return parseNewick(readTextFile(path), path);
}

void requireUniqueLeafLabels(const NewickTree& tree) {
    std::unordered_map<std::string, int> seen;
    for (int leaf : tree.leaves()) {
        const NewickNode& n = tree.nodes[leaf];
        if (n.label.empty()) throw InputError(tree.source, n.line, n.column, "leaf without a label");
        auto [it, inserted] = seen.emplace(n.label, leaf);
        if (!inserted) {
            const NewickNode& first = tree.nodes[it->second];
            throw InputError(tree.source, n.line, n.column,
                             "duplicate leaf name '" + n.label + "' (first at line " +
                                 std::to_string(first.line) + ", column " + std::to_string(first.column) +
                                 ")");
        }
    }
}

std::string quoteNewickLabel(const std::string& label) {
    bool needsQuotes = false;
    for (char c : label)
        if (isDelimiter(c)) needsQuotes = true;
    if (!needsQuotes) return label;
    std::string out = "'";
    for (char c : label) {
        out += c;
        if (c == '\'') out += '\'';
    }
    return out + "'";
}

std::string writeNewick(const NewickTree& tree, const NewickWriteOptions& options) {
    std::string out;
    if (tree.root < 0) return ";";
    // Iterative: (node, next child index)
    std::vector<std::pair<int, std::size_t>> stack{{tree.root, 0}};
    while (!stack.empty()) {
        auto& [node, next] = stack.back();
        const NewickNode& n = tree.nodes[node];
        if (next == 0 && !n.children.empty()) out += '(';
        if (next < n.children.size()) {
            if (next > 0) out += ',';
            int child = n.children[next++];
            stack.emplace_back(child, 0);
            continue;
        }
        if (!n.children.empty()) out += ')';
        if (n.children.empty() || options.internalLabels) out += quoteNewickLabel(n.label);
        if (options.lengths && n.length) {
            char buf[64];
            std::snprintf(buf, sizeof buf, ":%.10g", *n.length);
            out += buf;
        }
        stack.pop_back();
    }
    return out + ";";
}

} // namespace gpurec
