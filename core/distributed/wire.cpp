#include "distributed/wire.hpp"

namespace gpurec {

namespace {

void write(ByteWriter& out, const EarlyStops& e) {
    out.value(e.solves);
    out.value(e.families);
    out.value(e.residual);
    out.value(e.iterationCap);
    out.value(e.tolerance);
}

EarlyStops readEarlyStops(ByteReader& in) {
    EarlyStops e;
    e.solves = in.value<long>();
    e.families = in.value<long>();
    e.residual = in.value<double>();
    e.iterationCap = in.value<int>();
    e.tolerance = in.value<double>();
    return e;
}

void write(ByteWriter& out, const Reconciliation& r) {
    out.text(r.family);
    out.value(r.root);
    out.value(r.originSpecies);
    out.value(static_cast<long long>(r.nodes.size()));
    for (const ReconNode& n : r.nodes) {
        out.text(n.name);
        out.value(n.parent);
        out.values(n.children);
        out.values(n.events); // a plain struct: an enum and two ints
        out.value(n.branchLength);
        out.value(n.clade);
    }
}

Reconciliation readReconciliation(ByteReader& in) {
    Reconciliation r;
    r.family = in.text();
    r.root = in.value<int>();
    r.originSpecies = in.value<int>();
    r.nodes.resize(static_cast<std::size_t>(in.value<long long>()));
    for (ReconNode& n : r.nodes) {
        n.name = in.text();
        n.parent = in.value<int>();
        n.children = in.values<int>();
        n.events = in.values<ReconEvent>();
        n.branchLength = in.value<double>();
        n.clade = in.value<int>();
    }
    return r;
}

} // namespace

void write(ByteWriter& out, const SolverStats& s) {
    out.value(s.eIterations);
    out.value(s.eResidual);
    out.value(s.piIterations);
    out.value(s.maxPiIterations);
    out.value(s.bicgstabIterations);
    out.value(s.bicgstabBreakdowns);
    out.value(s.prunedClades);
    out.value(s.seconds);
    write(out, s.eEarly);
    write(out, s.piEarly);
    write(out, s.bicgstabEarly);
}

SolverStats readSolverStats(ByteReader& in) {
    SolverStats s;
    s.eIterations = in.value<int>();
    s.eResidual = in.value<double>();
    s.piIterations = in.value<long>();
    s.maxPiIterations = in.value<int>();
    s.bicgstabIterations = in.value<long>();
    s.bicgstabBreakdowns = in.value<long>();
    s.prunedClades = in.value<long>();
    s.seconds = in.value<double>();
    s.eEarly = readEarlyStops(in);
    s.piEarly = readEarlyStops(in);
    s.bicgstabEarly = readEarlyStops(in);
    return s;
}

void write(ByteWriter& out, const FamilyProblem& p) {
    for (const std::string* s : {&p.family, &p.message, &p.file, &p.reason, &p.filter})
        out.text(*s);
    out.value(p.line);
    out.value(p.column);
}

FamilyProblem readFamilyProblem(ByteReader& in) {
    FamilyProblem p;
    for (std::string* s : {&p.family, &p.message, &p.file, &p.reason, &p.filter})
        *s = in.text();
    p.line = in.value<int>();
    p.column = in.value<int>();
    return p;
}

void write(ByteWriter& out, const FamilySamples& s) {
    out.value(s.family);
    out.value(s.logLikelihood);
    write(out, s.stats);
    out.value(static_cast<long long>(s.reconciliations.size()));
    for (const Reconciliation& r : s.reconciliations)
        write(out, r);
}

FamilySamples readFamilySamples(ByteReader& in) {
    FamilySamples s;
    s.family = in.value<int>();
    s.logLikelihood = in.value<double>();
    s.stats = readSolverStats(in);
    s.reconciliations.resize(static_cast<std::size_t>(in.value<long long>()));
    for (Reconciliation& r : s.reconciliations)
        r = readReconciliation(in);
    return s;
}

} // namespace gpurec
