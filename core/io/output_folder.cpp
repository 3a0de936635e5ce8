#include "io/output_folder.hpp"

#include "io/output_file.hpp"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace gpurec {

namespace fs = std::filesystem;

namespace {

void removeLeftoverTemporaries(const fs::path& folder) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && isOutputTemporary(it->path().filename().string()))
            fs::remove(it->path(), ec);
}

} // namespace

void prepareOutputFolder(const std::string& folder, const std::vector<std::string>& ownedEntries,
                         ExistingOutputs existing) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec || !fs::is_directory(folder))
        throw std::runtime_error("cannot create output folder " + folder + (ec ? ": " + ec.message() : ""));
    // Proves the folder writable before any (possibly hours long) work starts.
    OutputFile probe((fs::path(folder) / ".gpurec-write-test").string());
    probe.stream() << "gpurec\n";
    probe.commit();
    fs::remove(fs::path(folder) / ".gpurec-write-test", ec);

    std::vector<std::string> present;
    for (const std::string& entry : ownedEntries)
        if (fs::exists(fs::path(folder) / entry, ec)) present.push_back(entry);
    if (!present.empty() && existing == ExistingOutputs::Refuse) {
        std::string list;
        for (const std::string& p : present)
            list += (list.empty() ? "" : ", ") + p;
        throw std::runtime_error("output folder " + folder + " already holds results of an earlier run (" +
                                 list +
                                 "); pass --overwrite to replace them, or choose another folder with -p");
    }
    if (existing == ExistingOutputs::Overwrite)
        for (const std::string& p : present) {
            fs::remove_all(fs::path(folder) / p, ec);
            if (ec)
                throw std::runtime_error("cannot remove " + (fs::path(folder) / p).string() + ": " +
                                         ec.message());
        }
    removeLeftoverTemporaries(folder);
}

std::string fileStem(const std::string& name) {
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(name[i]);
        bool plain = std::isalnum(c) || c == '_' || c == '-' || c == '+' || (c == '.' && i > 0);
        if (plain && c < 0x80) {
            out += static_cast<char>(c);
        } else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            out += hex;
        }
    }
    return out.empty() ? "%" : out; // "%" alone never comes from a non-empty name
}

std::string fileStemName(const std::string& stem) {
    if (stem == "%") return "";
    std::string out;
    for (std::size_t i = 0; i < stem.size(); ++i) {
        if (stem[i] == '%' && i + 2 < stem.size() && std::isxdigit(static_cast<unsigned char>(stem[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(stem[i + 2]))) {
            out += static_cast<char>(std::stoi(stem.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += stem[i];
        }
    }
    return out;
}

} // namespace gpurec
