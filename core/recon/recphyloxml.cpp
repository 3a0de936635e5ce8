#include "recon/recphyloxml.hpp"

#include "io/input_error.hpp"
#include "io/output_file.hpp"
#include "io/text_file.hpp"

#include <pugixml.hpp>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace gpurec {

namespace {

// ---------------------------------------------------------------------------------------------
// Writing

std::string formatNumber(double value) {
    char buf[32];
    auto result = std::to_chars(buf, buf + sizeof buf, value); // shortest round-trip form
    return std::string(buf, result.ptr);
}

// A clade element with its <name>; the caller adds the events and children in phyloXML order.
pugi::xml_node appendClade(pugi::xml_node parent, const std::string& name) {
    pugi::xml_node clade = parent.append_child("clade");
    clade.append_child("name").text().set(name.c_str());
    return clade;
}

void appendEvent(pugi::xml_node eventsRec, const char* tag, const char* attribute,
                 const std::string& species) {
    eventsRec.append_child(tag).append_attribute(attribute).set_value(species.c_str());
}

void writeSpeciesTree(pugi::xml_node phylogeny, const SpeciesTree& s) {
    std::vector<std::pair<int, pugi::xml_node>> stack{{s.root(), phylogeny}};
    while (!stack.empty()) {
        auto [e, parent] = stack.back();
        stack.pop_back();
        pugi::xml_node clade = appendClade(parent, s.name(e));
        if (e != s.root())
            clade.append_child("branch_length").text().set(formatNumber(s.branchLength(e)).c_str());
        if (!s.isLeaf(e)) {
            stack.emplace_back(s.right(e), clade);
            stack.emplace_back(s.left(e), clade);
        }
    }
}

class GeneTreeWriter {
  public:
    GeneTreeWriter(const SpeciesTree& species, const Reconciliation& rec) : s_(species), r_(rec) {}

    void write(pugi::xml_node phylogeny) {
        if (r_.root < 0 || r_.root >= int(r_.nodes.size())) fail("has no root node");
        // (gene node, empty clade element to fill, species it arrives in by transfer or -1)
        std::vector<std::tuple<int, pugi::xml_node, int>> stack{
            {r_.root, phylogeny.append_child("clade"), -1}};
        while (!stack.empty()) {
            auto [node, slot, arrival] = stack.back();
            stack.pop_back();
            writeNode(node, slot, arrival, stack);
        }
    }

  private:
    const SpeciesTree& s_;
    const Reconciliation& r_;

    [[noreturn]] void fail(const std::string& problem) const {
        throw std::invalid_argument("reconciliation of family '" + r_.family + "' " + problem);
    }

    const std::string& speciesName(int e) const {
        if (e < 0 || e >= s_.size())
            fail("refers to species index " + std::to_string(e) + " (the tree has " +
                 std::to_string(s_.size()) + " nodes)");
        return s_.name(e);
    }

    int firstSpecies(int node) const {
        if (node < 0 || node >= int(r_.nodes.size())) fail("has a child index out of range");
        if (r_.nodes[node].events.empty()) fail("has a gene node without events");
        return r_.nodes[node].events.front().species;
    }

    // Opens the clade's <eventsRec>, starting with <transferBack> when the lineage arrives by transfer.
    pugi::xml_node openEvents(pugi::xml_node clade, int& arrival) const {
        pugi::xml_node events = clade.append_child("eventsRec");
        if (arrival >= 0) appendEvent(events, "transferBack", "destinationSpecies", speciesName(arrival));
        arrival = -1;
        return events;
    }

    void writeLossClade(pugi::xml_node clade, int species) const {
        clade.append_child("name").text().set("loss");
        appendEvent(clade.append_child("eventsRec"), "loss", "speciesLocation", speciesName(species));
    }

    void writeNode(int node, pugi::xml_node slot, int arrival,
                   std::vector<std::tuple<int, pugi::xml_node, int>>& stack) const {
        const ReconNode& n = r_.nodes[node];
        if (n.events.empty()) fail("has a gene node without events");
        // Branch events (SL, TL): an intermediate NULL clade with a loss child and the continuation.
        for (std::size_t i = 0; i + 1 < n.events.size(); ++i) {
            const ReconEvent& ev = n.events[i];
            int next = n.events[i + 1].species;
            slot.append_child("name").text().set("NULL");
            pugi::xml_node events = openEvents(slot, arrival);
            if (ev.type == EventType::SpeciationLoss) {
                appendEvent(events, "speciation", "speciesLocation", speciesName(ev.species));
                if (s_.isLeaf(ev.species))
                    fail("has a speciation-loss at species leaf " + s_.name(ev.species));
                speciesName(next);
                bool keepsLeft = s_.isAncestorOrSelf(s_.left(ev.species), next);
                if (!keepsLeft && !s_.isAncestorOrSelf(s_.right(ev.species), next))
                    fail("continues below a speciation-loss at " + s_.name(ev.species) + " in species " +
                         s_.name(next) + ", which is not below it");
                pugi::xml_node continuation = slot.append_child("clade");
                pugi::xml_node loss = keepsLeft ? slot.insert_child_after("clade", continuation)
                                                : slot.insert_child_before("clade", continuation);
                writeLossClade(loss, keepsLeft ? s_.right(ev.species) : s_.left(ev.species));
                slot = continuation;
            } else if (ev.type == EventType::TransferLoss) {
                appendEvent(events, "branchingOut", "speciesLocation", speciesName(ev.species));
                writeLossClade(slot.append_child("clade"), ev.species);
                speciesName(ev.recipient);
                arrival = ev.recipient;
                slot = slot.append_child("clade");
            } else {
                fail(std::string("has event ") + eventName(ev.type) +
                     " before the end of a branch (only SL and TL may precede the node's own event)");
            }
        }
        const ReconEvent& own = n.events.back();
        bool internal = own.type == EventType::Speciation || own.type == EventType::Duplication ||
                        own.type == EventType::Transfer;
        std::string name = !n.name.empty() ? n.name : own.type == EventType::Loss ? "loss" : "NULL";
        slot.append_child("name").text().set(name.c_str());
        if (n.branchLength != 0.0)
            slot.append_child("branch_length").text().set(formatNumber(n.branchLength).c_str());
        pugi::xml_node events = openEvents(slot, arrival);
        const std::string& where = speciesName(own.species);
        switch (own.type) {
        case EventType::Leaf:
            appendEvent(events, "leaf", "speciesLocation", where);
            break;
        case EventType::Loss:
            appendEvent(events, "loss", "speciesLocation", where);
            break;
        case EventType::Speciation:
            appendEvent(events, "speciation", "speciesLocation", where);
            break;
        case EventType::Duplication:
            appendEvent(events, "duplication", "speciesLocation", where);
            break;
        case EventType::Transfer:
            appendEvent(events, "branchingOut", "speciesLocation", where);
            break;
        default:
            fail(std::string("ends a branch with ") + eventName(own.type) + ", which is not a node event");
        }
        if (internal != (n.children.size() == 2))
            fail("has a gene node with event " + std::string(eventName(own.type)) + " and " +
                 std::to_string(n.children.size()) + " children");
        if (!internal) return;
        int transferred = own.type == EventType::Transfer ? transferredChild(n) : -1;
        pugi::xml_node clades[2] = {slot.append_child("clade"), slot.append_child("clade")};
        for (int k = 1; k >= 0; --k) // left child on top of the stack
            stack.emplace_back(n.children[k], clades[k], k == transferred ? firstSpecies(n.children[k]) : -1);
    }

    // Which child (0 or 1) of a transfer node left its species: the one not starting there.
    int transferredChild(const ReconNode& n) const {
        int e = n.events.back().species;
        bool stays0 = firstSpecies(n.children[0]) == e, stays1 = firstSpecies(n.children[1]) == e;
        if (stays0 != stays1) return stays0 ? 1 : 0;
        fail("has a transfer at " + s_.name(e) + " whose children do not start one in " + s_.name(e) +
             " and one elsewhere");
    }
};

// ---------------------------------------------------------------------------------------------
// Reading

const char* localName(pugi::xml_node node) {
    const char* name = node.name();
    const char* colon = std::strrchr(name, ':');
    return colon ? colon + 1 : name;
}

pugi::xml_node childNamed(pugi::xml_node node, const char* name) {
    for (pugi::xml_node c : node.children())
        if (c.type() == pugi::node_element && std::strcmp(localName(c), name) == 0) return c;
    return {};
}

std::vector<pugi::xml_node> childrenNamed(pugi::xml_node node, const char* name) {
    std::vector<pugi::xml_node> out;
    for (pugi::xml_node c : node.children())
        if (c.type() == pugi::node_element && std::strcmp(localName(c), name) == 0) out.push_back(c);
    return out;
}

std::string trimmed(const char* text) {
    std::string s(text);
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!s.empty() && blank(s.back()))
        s.pop_back();
    std::size_t start = 0;
    while (start < s.size() && blank(s[start]))
        ++start;
    return s.substr(start);
}

enum class XmlEvent {
    Leaf,
    Speciation,
    Duplication,
    BranchingOut,
    Loss, // a node's own event (last in <eventsRec>)
    TransferBack,
    SpeciationLoss,
    SpeciationOutLoss // on the branch above it
};

struct RawEvent {
    XmlEvent kind;
    int species; // speciesLocation, or destinationSpecies for transferBack
};

struct RawClade {
    std::string name;
    double branchLength = 0.0;
    std::vector<RawEvent> events;
    std::vector<int> children;
    pugi::xml_node element;
};

class DocumentReader {
  public:
    DocumentReader(const std::string& text, const std::string& source) : text_(text), source_(source) {
        lineStarts_.push_back(0);
        for (std::size_t i = 0; i < text.size(); ++i)
            if (text[i] == '\n') lineStarts_.push_back(i + 1);
    }

    RecPhyloDocument read() {
        pugi::xml_document doc;
        pugi::xml_parse_result parsed =
            doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
        if (!parsed) failAt(parsed.offset, std::string("not well-formed XML: ") + parsed.description());
        pugi::xml_node root = doc.document_element();
        if (!root || std::strcmp(localName(root), "recPhylo") != 0)
            failAt(root ? start(root) : 0, "the document element must be <recPhylo>");
        RecPhyloDocument out;
        out.speciesNewick = readSpeciesTree(root);
        out.species = SpeciesTree::fromNewick(out.speciesNewick);
        species_ = &out.species;
        for (pugi::xml_node gene : childrenNamed(root, "recGeneTree"))
            out.reconciliations.push_back(readGeneTree(gene));
        return out;
    }

  private:
    const std::string& text_;
    const std::string& source_;
    std::vector<std::size_t> lineStarts_;
    const SpeciesTree* species_ = nullptr;

    std::pair<int, int> position(std::ptrdiff_t offset) const {
        if (offset < 0) return {0, 0};
        auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), std::size_t(offset));
        int line = int(it - lineStarts_.begin());
        return {line, int(std::size_t(offset) - lineStarts_[line - 1]) + 1};
    }
    [[noreturn]] void failAt(std::ptrdiff_t offset, const std::string& problem) const {
        auto [line, column] = position(offset);
        throw InputError(source_, line, column, problem);
    }
    // pugixml locates an element by its name; point at its '<' instead.
    static std::ptrdiff_t start(pugi::xml_node node) {
        std::ptrdiff_t offset = node.offset_debug();
        return node.type() == pugi::node_element && offset > 0 ? offset - 1 : offset;
    }
    [[noreturn]] void fail(pugi::xml_node node, const std::string& problem) const {
        failAt(start(node), problem);
    }

    pugi::xml_node requireChild(pugi::xml_node node, const char* name) const {
        pugi::xml_node c = childNamed(node, name);
        if (!c) fail(node, "<" + std::string(localName(node)) + "> has no <" + name + ">");
        return c;
    }

    double branchLength(pugi::xml_node clade) const {
        pugi::xml_node bl = childNamed(clade, "branch_length");
        if (!bl) return 0.0;
        std::string text = trimmed(bl.child_value());
        char* end = nullptr;
        double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size())
            fail(bl, "branch length '" + text + "' is not a number");
        return value;
    }

    NewickTree readSpeciesTree(pugi::xml_node root) const {
        pugi::xml_node top = requireChild(requireChild(requireChild(root, "spTree"), "phylogeny"), "clade");
        NewickTree tree;
        tree.source = source_;
        std::vector<std::pair<pugi::xml_node, int>> stack{{top, -1}};
        while (!stack.empty()) {
            auto [clade, parent] = stack.back();
            stack.pop_back();
            int index = int(tree.nodes.size());
            NewickNode node;
            node.label = trimmed(childNamed(clade, "name").child_value());
            if (childNamed(clade, "branch_length")) node.length = branchLength(clade);
            node.parent = parent;
            std::tie(node.line, node.column) = position(start(clade));
            tree.nodes.push_back(node);
            if (parent >= 0) tree.nodes[parent].children.push_back(index);
            std::vector<pugi::xml_node> kids = childrenNamed(clade, "clade");
            for (auto it = kids.rbegin(); it != kids.rend(); ++it)
                stack.emplace_back(*it, index);
        }
        tree.root = 0;
        tree.line = tree.nodes[0].line;
        return tree;
    }

    int speciesAttribute(pugi::xml_node event, const char* attribute) const {
        pugi::xml_attribute a = event.attribute(attribute);
        if (!a) fail(event, "<" + std::string(localName(event)) + "> has no " + attribute + " attribute");
        int e = species_->find(a.value());
        if (e < 0)
            fail(event, "unknown species '" + std::string(a.value()) + "' in <" + localName(event) + ">");
        return e;
    }

    RawEvent readEvent(pugi::xml_node event) const {
        static const std::pair<const char*, XmlEvent> located[] = {
            {"leaf", XmlEvent::Leaf},
            {"speciation", XmlEvent::Speciation},
            {"duplication", XmlEvent::Duplication},
            {"branchingOut", XmlEvent::BranchingOut},
            {"speciationOut", XmlEvent::BranchingOut},
            {"loss", XmlEvent::Loss},
            {"speciationLoss", XmlEvent::SpeciationLoss},
            {"speciationOutLoss", XmlEvent::SpeciationOutLoss}};
        const char* tag = localName(event);
        if (std::strcmp(tag, "transferBack") == 0)
            return {XmlEvent::TransferBack, speciesAttribute(event, "destinationSpecies")};
        for (const auto& [name, kind] : located)
            if (std::strcmp(tag, name) == 0) return {kind, speciesAttribute(event, "speciesLocation")};
        fail(event, "unsupported event <" + std::string(tag) + ">");
    }

    static bool isNodeEvent(XmlEvent k) {
        return k == XmlEvent::Leaf || k == XmlEvent::Speciation || k == XmlEvent::Duplication ||
               k == XmlEvent::BranchingOut || k == XmlEvent::Loss;
    }

    std::vector<RawClade> readClades(pugi::xml_node top) const {
        std::vector<RawClade> clades;
        std::vector<std::pair<pugi::xml_node, int>> stack{{top, -1}};
        while (!stack.empty()) {
            auto [element, parent] = stack.back();
            stack.pop_back();
            RawClade c;
            c.element = element;
            c.name = trimmed(childNamed(element, "name").child_value());
            c.branchLength = branchLength(element);
            pugi::xml_node events = requireChild(element, "eventsRec");
            std::vector<pugi::xml_node> eventElements;
            for (pugi::xml_node ev : events.children())
                if (ev.type() == pugi::node_element) {
                    c.events.push_back(readEvent(ev));
                    eventElements.push_back(ev);
                }
            if (c.events.empty() || !isNodeEvent(c.events.back().kind))
                fail(events,
                     "the last event of a clade must be leaf, speciation, duplication, branchingOut or loss");
            for (std::size_t i = 0; i + 1 < c.events.size(); ++i)
                if (isNodeEvent(c.events[i].kind))
                    fail(events,
                         "a node event (leaf, speciation, duplication, branchingOut, loss) must be the last "
                         "event of its clade");
            for (std::size_t i = 0; i + 1 < c.events.size(); ++i)
                if (c.events[i].kind == XmlEvent::TransferBack) checkArrival(c.events, eventElements, i);
            std::vector<pugi::xml_node> kids = childrenNamed(element, "clade");
            bool leafLike = c.events.back().kind == XmlEvent::Leaf || c.events.back().kind == XmlEvent::Loss;
            if (leafLike != kids.empty() || kids.size() > 2)
                fail(element, "a clade ending with <" + std::string(localName(events.last_child())) +
                                  "> has " + std::to_string(kids.size()) + " child clades");
            int index = int(clades.size());
            clades.push_back(std::move(c));
            if (parent >= 0) clades[parent].children.push_back(index);
            for (auto it = kids.rbegin(); it != kids.rend(); ++it)
                stack.emplace_back(*it, index);
        }
        return clades;
    }

    // A <transferBack> (events[i], not a clade's last event) opens its clade or follows a
    // <speciationOutLoss> in another species, and the lineage's next event is where it arrived.
    void checkArrival(const std::vector<RawEvent>& events, const std::vector<pugi::xml_node>& elements,
                      std::size_t i) const {
        const int to = events[i].species;
        if (i > 0 && events[i - 1].kind != XmlEvent::SpeciationOutLoss)
            fail(elements[i], "a <transferBack> must open its clade or follow a <speciationOutLoss>");
        if (i > 0 && events[i - 1].species == to)
            fail(elements[i], "a transfer must leave its species: <speciationOutLoss> in '" +
                                  species_->name(to) + "' is followed by <transferBack> to it");
        if (events[i + 1].species != to)
            fail(elements[i + 1], "the lineage transferred to '" + species_->name(to) +
                                      "' (<transferBack>) goes on in '" +
                                      species_->name(events[i + 1].species) + "'");
    }

    // The species where c's child clades arrive by <transferBack> (−1: none). Only a <branchingOut> in e
    // sends one there, and exactly one: to another species, the other child going on in e.
    int arrivalOf(const std::vector<RawClade>& raw, const RawClade& c) const {
        const RawEvent& own = c.events.back();
        int arriving = 0, destination = -1;
        for (int child : c.children)
            if (raw[child].events.front().kind == XmlEvent::TransferBack) {
                ++arriving;
                destination = raw[child].events.front().species;
            }
        if (own.kind != XmlEvent::BranchingOut) {
            if (arriving > 0)
                fail(c.element, "a child clade starts with <transferBack>, but only a <branchingOut> sends a "
                                "gene to another species");
            return -1;
        }
        if (arriving == 0)
            fail(c.element, "a transfer (branchingOut) without a child clade starting with <transferBack>");
        if (arriving == 2)
            fail(c.element, "a transfer (branchingOut) with both child clades starting with <transferBack>");
        const int e = own.species;
        for (int child : c.children) {
            const RawEvent& first = raw[child].events.front();
            if (first.kind == XmlEvent::TransferBack && first.species == e)
                fail(raw[child].element, "a transfer must leave its species: <branchingOut> in '" +
                                             species_->name(e) + "' has its <transferBack> to it");
            if (first.kind != XmlEvent::TransferBack && first.species != e)
                fail(raw[child].element, "the lineage staying at the <branchingOut> in '" +
                                             species_->name(e) + "' goes on in '" +
                                             species_->name(first.species) + "'");
        }
        return destination;
    }

    static bool isLossClade(const RawClade& c) {
        return c.children.empty() && c.events.back().kind == XmlEvent::Loss;
    }

    Reconciliation readGeneTree(pugi::xml_node gene) const {
        pugi::xml_node phylogeny = requireChild(gene, "phylogeny");
        std::vector<RawClade> raw = readClades(requireChild(phylogeny, "clade"));
        if (raw[0].events.front().kind == XmlEvent::TransferBack)
            fail(raw[0].element,
                 "a gene tree's root clade starts with <transferBack>: it arrives from nowhere");
        Reconciliation rec;
        rec.family = trimmed(childNamed(phylogeny, "name").child_value());
        std::vector<std::pair<int, int>> stack{{0, -1}}; // (raw clade, parent gene node)
        while (!stack.empty()) {
            auto [r, parent] = stack.back();
            stack.pop_back();
            int node = int(rec.nodes.size());
            rec.nodes.emplace_back();
            rec.nodes[node].parent = parent;
            if (parent >= 0) rec.nodes[parent].children.push_back(node);
            r = foldBranch(raw, r, rec.nodes[node]);
            const RawClade& c = raw[r];
            for (auto it = c.children.rbegin(); it != c.children.rend(); ++it)
                stack.emplace_back(*it, node);
        }
        rec.root = 0;
        rec.originSpecies = rec.nodes[0].events.front().species;
        return rec;
    }

    // Reads the gene branch starting at raw clade r into `node`, following SL/TL patterns down to
    // the clade holding the node's own event; returns that clade.
    int foldBranch(const std::vector<RawClade>& raw, int r, ReconNode& node) const {
        for (;;) {
            const RawClade& c = raw[r];
            node.branchLength += c.branchLength;
            for (std::size_t i = 0; i + 1 < c.events.size(); ++i) {
                const RawEvent& ev = c.events[i];
                if (ev.kind == XmlEvent::SpeciationLoss) {
                    node.events.push_back({EventType::SpeciationLoss, ev.species});
                } else if (ev.kind == XmlEvent::SpeciationOutLoss) {
                    node.events.push_back({EventType::TransferLoss, ev.species});
                } else if (!node.events.empty() && node.events.back().type == EventType::TransferLoss &&
                           node.events.back().recipient < 0) {
                    node.events.back().recipient = ev.species; // transferBack after speciationOutLoss
                }
            }
            const RawEvent& own = c.events.back();
            const int destination = arrivalOf(raw, c);
            if ((own.kind == XmlEvent::Speciation || own.kind == XmlEvent::BranchingOut) &&
                c.children.size() == 2 &&
                isLossClade(raw[c.children[0]]) != isLossClade(raw[c.children[1]])) {
                int other = isLossClade(raw[c.children[0]]) ? c.children[1] : c.children[0];
                const RawEvent& first = raw[other].events.front();
                if (own.kind == XmlEvent::Speciation) {
                    node.events.push_back({EventType::SpeciationLoss, own.species});
                    r = other;
                    continue;
                }
                if (first.kind == XmlEvent::TransferBack) {
                    node.events.push_back({EventType::TransferLoss, own.species, destination});
                    r = other;
                    continue;
                }
            }
            for (const ReconEvent& ev : node.events)
                if (ev.type == EventType::TransferLoss && ev.recipient < 0)
                    fail(c.element, "speciationOutLoss without a following <transferBack>");
            switch (own.kind) {
            case XmlEvent::Leaf:
                node.events.push_back({EventType::Leaf, own.species});
                break;
            case XmlEvent::Loss:
                node.events.push_back({EventType::Loss, own.species});
                break;
            case XmlEvent::Speciation:
                node.events.push_back({EventType::Speciation, own.species});
                break;
            case XmlEvent::Duplication:
                node.events.push_back({EventType::Duplication, own.species});
                break;
            default:
                node.events.push_back({EventType::Transfer, own.species, destination});
                break;
            }
            bool placeholder = own.kind == XmlEvent::Loss ? c.name == "loss"
                                                          : own.kind != XmlEvent::Leaf && c.name == "NULL";
            node.name = placeholder ? std::string() : c.name;
            return r;
        }
    }
};

// Nesting depth of <clade> elements: each gene node is one level, each SL or TL on its branch one more.
int cladeNestingDepth(const Reconciliation& rec) {
    if (rec.root < 0) return 0;
    int deepest = 0;
    std::vector<std::pair<int, int>> stack = {{rec.root, 0}};
    while (!stack.empty()) {
        auto [node, above] = stack.back();
        stack.pop_back();
        const ReconNode& n = rec.nodes[node];
        int depth = above + static_cast<int>(n.events.size());
        deepest = std::max(deepest, depth);
        for (int c : n.children)
            stack.push_back({c, depth});
    }
    return deepest;
}

bool indented(XmlLayout layout, const std::vector<Reconciliation>& reconciliations) {
    if (layout != XmlLayout::Auto) return layout == XmlLayout::Indented;
    for (const Reconciliation& rec : reconciliations)
        if (cladeNestingDepth(rec) > kRecPhyloIndentDepthLimit) return false;
    return true;
}

void buildDocument(pugi::xml_document& doc, const SpeciesTree& species,
                   const std::vector<Reconciliation>& reconciliations) {
    pugi::xml_node root = doc.append_child("recPhylo");
    root.append_attribute("xmlns:xsi").set_value("http://www.w3.org/2001/XMLSchema-instance");
    root.append_attribute("xsi:schemaLocation").set_value("http://www.recg.org ./recGeneTreeXML.xsd");
    root.append_attribute("xmlns").set_value("http://www.recg.org");
    writeSpeciesTree(root.append_child("spTree").append_child("phylogeny"), species);
    for (const Reconciliation& rec : reconciliations) {
        pugi::xml_node phylogeny = root.append_child("recGeneTree").append_child("phylogeny");
        phylogeny.append_attribute("rooted").set_value("true");
        if (!rec.family.empty()) phylogeny.append_child("name").text().set(rec.family.c_str());
        GeneTreeWriter(species, rec).write(phylogeny);
    }
}

void saveDocument(const pugi::xml_document& doc, std::ostream& out, bool indent) {
    doc.save(out, "  ", indent ? pugi::format_default : pugi::format_raw);
}

} // namespace

std::string toRecPhyloXml(const SpeciesTree& species, const std::vector<Reconciliation>& reconciliations,
                          XmlLayout layout) {
    pugi::xml_document doc;
    buildDocument(doc, species, reconciliations);
    std::ostringstream out;
    saveDocument(doc, out, indented(layout, reconciliations));
    return out.str();
}

void writeRecPhyloXml(const std::string& path, const SpeciesTree& species,
                      const std::vector<Reconciliation>& reconciliations, XmlLayout layout) {
    pugi::xml_document doc;
    buildDocument(doc, species, reconciliations);
    OutputFile file(path);
    saveDocument(doc, file.stream(), indented(layout, reconciliations));
    file.commit();
}

RecPhyloDocument parseRecPhyloXml(const std::string& text, const std::string& source) {
    return DocumentReader(text, source).read();
}

RecPhyloDocument readRecPhyloXml(const std::string& path) {
    return parseRecPhyloXml(readTextFile(path), path);
}

} // namespace gpurec
