// The files written for sampled reconciliations: RecPhyloXML checked element by element with an
// independent XML reader (Qt's) and read back by ours, the two Newick forms, the CSV tables, and
// `gpurec sample` end to end with its errors on bad input.
#include "cli_run.hpp"
#include "recon/alerax_tables.hpp"
#include "recon/recon_newick.hpp"
#include "recon/recon_summary.hpp"
#include "recon/recon_tables.hpp"
#include "recon/recphyloxml.hpp"
#include "recon/sampler.hpp"
#include "recon/sampling_run.hpp"
#include "support.hpp"
#include "test_sampling_keys.hpp"

#include <QFile>
#include <QXmlStreamReader>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace gpurec;
using namespace gpurec::test;

namespace {

struct Sampled {
    LoadedInput in;
    std::vector<Reconciliation> recs;
};

// 60 reconciliations of test_trees_2 at rates that produce every event type.
Sampled sampleTestTrees2() {
    Sampled s{loadShared("alerax/test_trees_2", "sp.nwk"), {}};
    const Dataset& data = *s.in.dataset;
    RateParameters theta(RateMode::Global, data.species.size(), 1, {0.1, 0.2, 0.15});
    SamplingSettings settings;
    settings.samples = 60;
    settings.seed = 11;
    sampleFamilies(
        data, theta, {0}, settings, [&](FamilySamples&& fs) { s.recs = std::move(fs.reconciliations); },
        cpuTables(s.in.dataset, theta, settings));
    return s;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

std::vector<std::string> fields(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string f; std::getline(in, f, sep);)
        out.push_back(f);
    return out;
}

// What one <recGeneTree> holds, read with QXmlStreamReader.
struct GeneTreeFacts {
    std::map<std::string, int> leafNames; // name of each clade ending with <leaf>, and how often
    int lossClades = 0;
    int internalClades = 0;
};

} // namespace

class SamplingOutputs : public QObject {
    Q_OBJECT

  private slots:
    void recPhyloXmlElementByElement() {
        Sampled s = sampleTestTrees2();
        const SpeciesTree& species = s.in.dataset->species;
        const GeneFamily& fam = s.in.dataset->families[0];
        EventCounts all;
        for (const Reconciliation& r : s.recs) {
            EventCounts c = countEvents(r);
            all.SL += c.SL;
            all.TL += c.TL;
            all.T += c.T;
            all.D += c.D;
        }
        QVERIFY(all.SL > 0 && all.TL > 0 && all.T > 0 && all.D > 0); // every pattern is written
        std::string path = temporaryFolder("sampling_xml") + "/samples.xml";
        writeRecPhyloXml(path, species, s.recs);

        QFile file(QString::fromStdString(path));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        const std::set<QString> structural = {"recPhylo", "spTree", "recGeneTree",   "phylogeny",
                                              "clade",    "name",   "branch_length", "eventsRec"};
        const std::set<QString> located = {"leaf", "speciation", "duplication", "branchingOut", "loss"};
        std::set<std::string> speciesNames(species.names().begin(), species.names().end());
        std::vector<GeneTreeFacts> trees;
        std::vector<QString> open;       // element stack
        std::vector<QString> cladeName;  // name of each open clade
        std::vector<QString> cladeEvent; // last event of each open clade
        std::vector<int> cladeChildren;  // child clades of each open clade
        bool inGeneTree = false;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement()) {
                QString tag = xml.name().toString();
                QVERIFY2(structural.count(tag) || located.count(tag) || tag == "transferBack",
                         qPrintable("unexpected element <" + tag + ">"));
                if (open.empty()) QCOMPARE(tag, QString("recPhylo"));
                if (tag == "recGeneTree") {
                    inGeneTree = true;
                    trees.emplace_back();
                }
                if (tag == "clade") {
                    if (!cladeChildren.empty()) ++cladeChildren.back();
                    cladeName.emplace_back();
                    cladeEvent.emplace_back();
                    cladeChildren.push_back(0);
                }
                if (tag == "name" && open.back() == "clade")
                    cladeName.back() = xml.readElementText();
                else if (located.count(tag) || tag == "transferBack") {
                    QVERIFY(inGeneTree && open.back() == "eventsRec");
                    const char* attribute = tag == "transferBack" ? "destinationSpecies" : "speciesLocation";
                    QString where = xml.attributes().value(attribute).toString();
                    QVERIFY2(speciesNames.count(where.toStdString()),
                             qPrintable("<" + tag + "> names unknown species '" + where + "'"));
                    if (tag != "transferBack") cladeEvent.back() = tag;
                }
                if (xml.isStartElement()) open.push_back(tag); // readElementText consumed <name>
            } else if (xml.isEndElement()) {
                QString tag = open.back();
                open.pop_back();
                if (tag == "recGeneTree") inGeneTree = false;
                if (tag != "clade") continue;
                QString name = cladeName.back(), event = cladeEvent.back();
                int children = cladeChildren.back();
                cladeName.pop_back();
                cladeEvent.pop_back();
                cladeChildren.pop_back();
                if (!inGeneTree) continue;
                QVERIFY2(!event.isEmpty(), qPrintable("gene clade '" + name + "' without event"));
                if (event == "leaf") {
                    QCOMPARE(children, 0);
                    ++trees.back().leafNames[name.toStdString()];
                } else if (event == "loss") {
                    QCOMPARE(children, 0);
                    QCOMPARE(name, QString("loss"));
                    ++trees.back().lossClades;
                } else {
                    QCOMPARE(children, 2);
                    ++trees.back().internalClades;
                }
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(trees.size(), s.recs.size());
        for (std::size_t i = 0; i < trees.size(); ++i) {
            QCOMPARE(int(trees[i].leafNames.size()), fam.clades.geneCount());
            for (const std::string& gene : fam.clades.geneNames)
                QCOMPARE(trees[i].leafNames[gene], 1);
            EventCounts c = countEvents(s.recs[i]);
            QCOMPARE(long(trees[i].lossClades), c.SL + c.TL);
            QCOMPARE(long(trees[i].internalClades), c.S + c.D + c.T + c.SL + c.TL);
        }
    }

    void recPhyloXmlRoundTrip() {
        Sampled s = sampleTestTrees2();
        std::string dir = temporaryFolder("sampling_roundtrip");
        writeRecPhyloXml(dir + "/samples.xml", s.in.dataset->species, s.recs);
        RecPhyloDocument doc = readRecPhyloXml(dir + "/samples.xml");
        QCOMPARE(doc.species.names(), s.in.dataset->species.names());
        QCOMPARE(doc.reconciliations.size(), s.recs.size());
        for (std::size_t i = 0; i < s.recs.size(); ++i)
            QCOMPARE(canonicalKey(doc.reconciliations[i], true), canonicalKey(s.recs[i], true));
    }

    void newickForms() {
        Sampled s = sampleTestTrees2();
        const SpeciesTree& species = s.in.dataset->species;
        const GeneFamily& fam = s.in.dataset->families[0];
        std::set<std::string> genes(fam.clades.geneNames.begin(), fam.clades.geneNames.end());
        for (const Reconciliation& r : s.recs) {
            NewickTree events = parseNewick(toNewickEvents(r), "events").front();
            NewickTree ale = parseNewick(toAleNewick(r, species), "ale").front();
            QCOMPARE(events.leaves().size(), genes.size());
            QCOMPARE(events.nodes.size(), r.nodes.size());
            for (const NewickNode& n : events.nodes) {
                if (n.children.empty())
                    QVERIFY(genes.count(n.label));
                else
                    QVERIFY(n.label == "S" || n.label == "D" || n.label == "T");
            }
            // The root's two branches share one unrooted edge: half of the clade's length each.
            const NewickNode& root = events.nodes[events.root];
            QVERIFY(!root.length);
            for (int k = 0; k < 2; ++k) {
                const ReconNode& child = r.nodes[r.nodes[r.root].children[k]];
                QCOMPARE(*events.nodes[root.children[k]].length, fam.clades.branchLength[child.clade] / 2);
            }
            // ALE labels: leaves carry their gene alone, as in AleRax.
            std::set<std::string> aleLeaves;
            for (int leaf : ale.leaves())
                aleLeaves.insert(ale.nodes[leaf].label);
            QVERIFY(aleLeaves == genes);
        }
    }

    void csvTables() {
        Sampled s = sampleTestTrees2();
        const SpeciesTree& species = s.in.dataset->species;
        std::vector<std::string> ev = lines(eventCountsCsv(s.recs));
        QCOMPARE(ev.front(), std::string("sample,S,SL,D,T,TL,L,Leaf"));
        QCOMPARE(ev.size(), s.recs.size() + 1);
        std::vector<std::string> row = fields(ev[1], ',');
        EventCounts c0 = countEvents(s.recs[0]);
        QCOMPARE(row,
                 (std::vector<std::string>{"0", std::to_string(c0.S), std::to_string(c0.SL),
                                           std::to_string(c0.D), std::to_string(c0.T), std::to_string(c0.TL),
                                           std::to_string(c0.L), std::to_string(c0.Leaf)}));

        std::vector<std::string> sp = lines(speciesEventCountsCsv(s.recs, species));
        QCOMPARE(sp.front(),
                 std::string("sample,species_label,speciations,duplications,losses,transfers,presence,"
                             "origination,copies,singletons,transfers_to"));
        // Per sample: speciations add up to S + SL + leaves, losses to SL + TL, transfers to T + TL.
        std::map<int, std::array<double, 3>> sums;
        for (std::size_t i = 1; i < sp.size(); ++i) {
            std::vector<std::string> f = fields(sp[i], ',');
            QCOMPARE(f.size(), std::size_t(11));
            QVERIFY(species.find(f[1]) >= 0);
            auto& t = sums[std::stoi(f[0])];
            t[0] += std::stod(f[2]);
            t[1] += std::stod(f[4]);
            t[2] += std::stod(f[5]);
        }
        for (std::size_t i = 0; i < s.recs.size(); ++i) {
            EventCounts c = countEvents(s.recs[i]);
            QCOMPARE(sums[int(i)][0], double(c.S + c.SL + c.Leaf));
            QCOMPARE(sums[int(i)][1], double(c.SL + c.TL));
            QCOMPARE(sums[int(i)][2], double(c.T + c.TL));
        }

        ReconciliationSummary summary = summarize(s.recs, species);
        std::vector<std::string> mean = lines(meanSpeciesEventCountsCsv(summary, species));
        QCOMPARE(mean.front(), sp.front().substr(std::string("sample,").size()));
        std::vector<std::string> origins = lines(originationsCsv(summary, species));
        QCOMPARE(origins.front(), std::string("species_label,frequency"));
        double total = 0;
        for (std::size_t i = 1; i < origins.size(); ++i)
            total += std::stod(fields(origins[i], ',')[1]);
        QVERIFY(std::abs(total - 1) < 1e-12);
        // Transfers: `source destination count`, decreasing, counts adding up to T + TL.
        double transfers = 0, previous = 1e300;
        for (const std::string& line : lines(aleraxTransferTable(summary.transfers, species))) {
            std::vector<std::string> f = fields(line, ' ');
            QCOMPARE(f.size(), std::size_t(3));
            QVERIFY(species.find(f[0]) >= 0 && species.find(f[1]) >= 0);
            double v = std::stod(f[2]);
            QVERIFY(v <= previous);
            previous = v;
            transfers += v;
        }
        QVERIFY(std::abs(transfers - (summary.events[3] + summary.events[4])) < 1e-12);
    }

    void sampleCommandEndToEnd() {
        std::string out = temporaryFolder("cli_sample");
        std::string ds = sharedData("alerax/test_trees_2");
        QStringList args = {"sample",
                            "-s",
                            q(ds + "/sp.nwk"),
                            "-f",
                            q(ds + "/families.txt"),
                            "--d",
                            "0.1",
                            "--l",
                            "0.2",
                            "--t",
                            "0.15",
                            "--samples",
                            "25",
                            "--seed",
                            "3",
                            "-p",
                            q(out)};
        CliRun r = runGpurec(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("sampled 25 reconciliations for each of 1 families (seed 3)"),
                 qPrintable(r.out));
        const std::string rec = out + "/reconciliations/all/my_family",
                          sum = out + "/reconciliations/summaries/my_family";
        for (const std::string& f :
             {rec + "_samples.newick", rec + "_samples.alerec", rec + "_sample_0.xml", rec + "_sample_24.xml",
              rec + "_eventCounts_24.txt", rec + "_speciesEventCounts_24.txt", rec + "_transfers_24.txt",
              rec + "_eventCounts.csv", rec + "_speciesEventCounts.csv", sum + "_consensus_50.newick",
              sum + "_meanSpeciesEventCounts.txt", sum + "_meanTransfers.txt",
              sum + "_meanSpeciesEventCounts.csv", sum + "_originations.csv",
              out + "/reconciliations/totalSpeciesEventCounts.txt",
              out + "/reconciliations/totalTransfers.txt", out + "/reconciliations/originations.csv"})
            QVERIFY2(std::filesystem::exists(f), f.c_str());
        QVERIFY(!std::filesystem::exists(rec + "_sample_25.xml"));
        for (int e = 0; e < 2; ++e) // a file per species node in origins/
            QVERIFY(std::filesystem::exists(
                out + "/reconciliations/origins/" +
                fields(lines(fileText(rec + "_speciesEventCounts_0.txt"))[1 + e], ',')[0] + ".txt"));
        QCOMPARE(readRecPhyloXml(rec + "_sample_3.xml").reconciliations.size(), std::size_t(1));
        std::ifstream newick(rec + "_samples.newick");
        int count = 0;
        for (std::string line; std::getline(newick, line); ++count)
            QCOMPARE(parseNewick(line, "line").size(), std::size_t(1));
        QCOMPARE(count, 25);
        QCOMPARE(lines(fileText(rec + "_eventCounts.csv")).front(), std::string("sample,S,SL,D,T,TL,L,Leaf"));
        QCOMPARE(lines(fileText(rec + "_eventCounts_0.txt")).size(), std::size_t(8));
        // The total over one family is that family's mean.
        QCOMPARE(fileText(out + "/reconciliations/totalTransfers.txt"), fileText(sum + "_meanTransfers.txt"));

        nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(std::string(j["families"][0]["name"]), std::string("my_family"));
        QCOMPARE(int(j["families"][0]["samples"]), 25);
        QVERIFY(relativeError(double(j["families"][0]["mean_event_counts"]["Leaf"]), 11) < 1e-15);
        QVERIFY(j["total"]["transfers"].is_array());
        QCOMPARE(int(j["options"]["seed"]), 3);

        // Same seed, same files; one XML file per family on request.
        std::string again = temporaryFolder("cli_sample_again");
        args.last() = q(again);
        args << "--xml-per-family";
        QCOMPARE(runGpurec(args).exitCode, 0);
        const std::string againRec = again + "/reconciliations/all/my_family";
        QCOMPARE(fileText(againRec + "_samples.alerec"), fileText(rec + "_samples.alerec"));
        QCOMPARE(readRecPhyloXml(againRec + "_samples.xml").reconciliations.size(), std::size_t(25));
        QVERIFY(!std::filesystem::exists(againRec + "_sample_0.xml"));
    }

    void sampleCommandErrors() {
        std::string dir = temporaryFolder("cli_sample_bad");
        std::string ds = sharedData("alerax/test_trees_2");
        auto run = [&](QStringList extra) {
            QStringList args = {"sample", "-s",         q(ds + "/sp.nwk"), "-f", q(ds + "/families.txt"),
                                "-p",     q(dir + "/o")};
            return runGpurec(args + extra);
        };
        // Option values are checked by the command line (CLI11's status 105), before any loading.
        CliRun r = run({"--samples", "0"});
        QCOMPARE(r.exitCode, 105);
        QCOMPARE(r.err.split('\n').first(), QString("--samples: must be >= 1, got 0"));
        r = run({"--d", "3"});
        QCOMPARE(r.exitCode, 105);
        QCOMPARE(r.err.split('\n').first(), QString("--d: must be in [1e-10, 2], got 3"));
        r = run({"--family", "nope"});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.trimmed(), QString("gpurec: error: family 'nope' is not in the input"));

        // Two families, one covering too few species.
        writeFile(dir + "/s.nwk", "((A,B),(C,D));");
        writeFile(dir + "/big.nwk", "((A_1,B_1),(C_1,D_1));");
        writeFile(dir + "/small.nwk", "((A_1,B_1),A_2);");
        writeFile(dir + "/families.txt",
                  "[FAMILIES]\n- big\ngene_tree = big.nwk\n- small\ngene_tree = small.nwk\n");
        r = runGpurec({"sample", "-s", q(dir + "/s.nwk"), "-f", q(dir + "/families.txt"), "--family", "small",
                       "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("gpurec: error: family 'small' was excluded ("), qPrintable(r.err));
        QVERIFY2(r.err.contains("); lower --min-covered-species (now 4) to sample it"), qPrintable(r.err));
        // Trimmed away: the hint names the trimming option.
        r = runGpurec({"sample", "-s", q(dir + "/s.nwk"), "-f", q(dir + "/families.txt"), "--family", "big",
                       "--min-covered-species", "1", "--trim-ratio", "0.5", "-p", q(dir + "/o")});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(
            r.err.trimmed().split('\n').last(),
            QString(
                "gpurec: error: family 'big' was excluded (has 11 clades; --trim-ratio 0.5 keeps the 1 of "
                "2 families with the fewest clades (at most 7)); change --trim-ratio to sample it"));
    }
};

QTEST_GUILESS_MAIN(SamplingOutputs)
#include "test_sampling_outputs.moc"
