//===--- LlvmCompat.h - the LLVM versions gradlint builds against ---------===//
//
// gradlint builds against LLVM 22 (the default) and LLVM 19 (Debian 12's
// clang-tidy-19). The few library interfaces that differ between the two
// are wrapped here, so the rest of the code is written once.
//
//===----------------------------------------------------------------------===//

#ifndef GRADLINT_LLVMCOMPAT_H
#define GRADLINT_LLVMCOMPAT_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#if LLVM_VERSION_MAJOR != 19 && LLVM_VERSION_MAJOR != 22
#error "gradlint builds against LLVM 22 or LLVM 19"
#endif

namespace gradlint::compat {

/// Path made absolute against Base (sys::path::make_absolute in LLVM 22,
/// sys::fs::make_absolute before).
inline void makeAbsolute(const llvm::Twine &Base, llvm::SmallVectorImpl<char> &Path) {
#if LLVM_VERSION_MAJOR >= 22
  llvm::sys::path::make_absolute(Base, Path);
#else
  llvm::sys::fs::make_absolute(Base, Path);
#endif
}

} // namespace gradlint::compat

#endif
