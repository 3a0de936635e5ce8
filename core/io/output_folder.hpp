#pragma once
// The output folder of one command run: checked writable before any work starts, never mixed
// with an earlier run's results, and every file name derived from user data kept inside it.
#include <string>
#include <vector>

namespace gpurec {

enum class ExistingOutputs {
    Refuse,    // an earlier run's outputs are there: error, unless the user said --overwrite
    Overwrite, // remove what the command owns before it writes anything
    Keep       // --resume: the earlier run's files are the starting point
};

// Creates the folder, proves it writable (a probe file), and applies `existing` to the entries the
// command owns (file or folder names relative to the folder). Leftover partial files of a crashed
// run are removed. Throws std::runtime_error with the folder, the entry and what to do.
void prepareOutputFolder(const std::string& folder, const std::vector<std::string>& ownedEntries,
                         ExistingOutputs existing);

// A family (or any user-given) name made safe as one file-name component: bytes outside
// [A-Za-z0-9._+-] and a leading '.' are written as %XX, so "../../x" becomes "%2E.%2F..%2Fx" (no '/'
// left, so ".." is harmless); plain names are unchanged, distinct names stay distinct, and
// fileStemName() reverses the mapping.
std::string fileStem(const std::string& name);
std::string fileStemName(const std::string& stem);

} // namespace gpurec
