#pragma once
// Compares the output folders of two runs that must agree (thread counts, process counts): the same
// files, byte for byte, except what legitimately depends on how the run ran.
#include "io/text_file.hpp"

#include <QtTest>
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace gpurec::test {

inline bool isTiming(const std::string& name) {
    return name.size() >= 7 && name.compare(name.size() - 7, 7, "seconds") == 0;
}

// result.json without what legitimately depends on the run: timings, the thread count, the device
// and the number of processes.
inline nlohmann::json withoutRunConditions(nlohmann::json j) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end();) {
            const std::string& key = it.key();
            if (isTiming(key) || key == "threads" || key == "device" || key == "mpi_ranks") {
                it = j.erase(it);
            } else {
                *it = withoutRunConditions(*it);
                ++it;
            }
        }
    } else if (j.is_array()) {
        for (auto& x : j)
            x = withoutRunConditions(x);
    }
    return j;
}

// A CSV trace without its timing columns (named *seconds in the header).
inline std::string withoutTimingColumns(const std::string& csv) {
    std::istringstream in(csv);
    std::vector<bool> keep; // per column, from the header line
    std::string out;
    for (std::string line; std::getline(in, line);) {
        const bool header = keep.empty();
        std::istringstream fields(line);
        std::size_t column = 0;
        for (std::string field; std::getline(fields, field, ','); ++column) {
            if (header) keep.push_back(!isTiming(field));
            if (column >= keep.size() || keep[column]) out += field + ",";
        }
        out += "\n";
    }
    return out;
}

// Every regular file under `dir`, by relative path.
inline std::vector<std::string> filesUnder(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
        if (entry.is_regular_file()) out.push_back(std::filesystem::relative(entry.path(), dir).string());
    std::sort(out.begin(), out.end());
    return out;
}

// The same files in `a` and `b`, byte for byte; result.json and checkpoint.json without the run's
// conditions, the traces (trace.csv, search_trace.csv) without their timings.
inline void compareOutputFolders(const std::string& a, const std::string& b) {
    const std::vector<std::string> files = filesUnder(a);
    QVERIFY(!files.empty());
    QCOMPARE(filesUnder(b), files);
    for (const std::string& file : files) {
        const std::string left = readTextFile(a + "/" + file), right = readTextFile(b + "/" + file);
        const std::string name = std::filesystem::path(file).filename().string();
        if (name == "result.json" || name == "checkpoint.json") {
            const nlohmann::json l = withoutRunConditions(nlohmann::json::parse(left));
            const nlohmann::json r = withoutRunConditions(nlohmann::json::parse(right));
            QVERIFY2(l == r, (file + " differs: " + nlohmann::json::diff(l, r).dump()).c_str());
        } else if (name == "trace.csv" || name == "search_trace.csv") {
            QCOMPARE(withoutTimingColumns(right), withoutTimingColumns(left));
        } else {
            QVERIFY2(left == right, (file + " differs between " + a + " and " + b).c_str());
        }
    }
}

} // namespace gpurec::test
