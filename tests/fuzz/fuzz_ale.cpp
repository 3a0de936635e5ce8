// .ale reader on arbitrary bytes: every input parses or fails with an InputError; a file that
// parses is written back and must read to the same clades.
#include "ccp/ale_file.hpp"
#include "io/input_error.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    gpurec::CladeSet clades;
    try {
        clades = gpurec::parseAle(text, "fuzz.ale").clades;
    } catch (const gpurec::InputError&) {
        return 0;
    }
    // Written counts of a file that was read must be readable: a failure here is a writer bug.
    const gpurec::CladeSet again = gpurec::parseAle(gpurec::aleText(clades), "again.ale").clades;
    if (again.cladeSize != clades.cladeSize || again.splitOffset != clades.splitOffset ||
        again.geneNames != clades.geneNames || again.treeCount != clades.treeCount)
        std::abort();
    return 0;
}
