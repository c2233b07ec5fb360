//===--- PluginVersionCheck.cpp - refuse to run in the wrong clang-tidy ---===//
//
// libgradlint-tidy.so is compiled against one clang-tidy's headers and takes
// every symbol from the clang-tidy that loads it. Class layouts change
// between LLVM releases, so a plugin loaded into another version would
// misbehave in ways that are hard to trace; this check makes it fail at load
// time with a message that says what to do.
//
//===----------------------------------------------------------------------===//

#include "clang/Basic/Version.h"
#include "llvm/ADT/StringRef.h"
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct PluginVersionCheck {
  PluginVersionCheck() {
    // The running clang-tidy's version, from the libclang-cpp it uses.
    std::string Running = clang::getClangFullVersion();
    llvm::StringRef Built = GRADLINT_CLANG_TIDY_VERSION;
    llvm::StringRef Major = Built.split('.').first;
    llvm::StringRef Text(Running);
    size_t At = Text.find("version ");
    llvm::StringRef RunningVersion =
        At == llvm::StringRef::npos ? "" : Text.substr(At + 8).split(' ').first;
    if (RunningVersion.split('.').first == Major)
      return;
    std::fprintf(stderr,
                 "libgradlint-tidy.so: built for clang-tidy %s, but loaded by "
                 "%s. Use clang-tidy-%s, or the gradlint command, which needs "
                 "no plugin.\n",
                 Built.str().c_str(), Running.c_str(), Major.str().c_str());
    std::exit(3);
  }
} Check;

} // namespace
