//===--- NvccCommand.h - read nvcc entries of a compilation database ------===//
//
// CMake and other build systems record CUDA sources with nvcc's command line,
// which clang rejects (-gencode, --expt-relaxed-constexpr, -Xcompiler...).
// gradlint translates such a command into the clang command that parses the
// same host code: clang 22 parses CUDA 13 headers in host-only mode.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_TOOL_NVCCCOMMAND_H
#define GRADLINT_TOOL_NVCCCOMMAND_H

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringRef.h"
#include <memory>
#include <string>
#include <vector>

namespace gradlint {

/// Whether \p Argv0 names nvcc.
bool isNvcc(llvm::StringRef Argv0);

/// The clang command line that parses the host side of an nvcc command.
/// Arguments are the whole command, argv[0] included.
std::vector<std::string> translateNvccCommand(const std::vector<std::string> &Nvcc);

/// Wraps a compilation database so that nvcc entries come out as clang
/// commands; other entries pass through unchanged.
std::unique_ptr<clang::tooling::CompilationDatabase>
translatingNvccCommands(const clang::tooling::CompilationDatabase &Inner);

} // namespace gradlint

#endif
