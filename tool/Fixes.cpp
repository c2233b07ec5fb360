//===--- Fixes.cpp - what --fix may edit ----------------------------------===//

#include "Fixes.h"
#include "Findings.h"
#include "Inputs.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace clang;
using clang::tidy::ClangTidyError;

namespace gradlint {

FixGuard::FixGuard(const SourceFiles &Sources, ArrayRef<std::string> Inputs) {
  Directories.push_back(Sources.root());
  for (const std::string &Input : Inputs)
    if (std::optional<std::string> Real = realPath(makeAbsolute(Input)))
      Directories.push_back(sys::path::parent_path(*Real).str());
  llvm::sort(Directories);
  Directories.erase(std::unique(Directories.begin(), Directories.end()), Directories.end());
}

unsigned FixGuard::apply(std::vector<ClangTidyError> &Errors, bool WithNotes) {
  for (ClangTidyError &E : Errors) {
    bool Refused = false;
    forEachFixIt(E, WithNotes, [&](const std::string &File, const tooling::Replacement &) {
      Refused |= !allowed(File);
    });
    if (Refused)
      clearFixIts(E);
  }
  return Refusals;
}

void FixGuard::restorePermissions() {
  for (const auto &[File, Permissions] : Kept) {
    ErrorOr<sys::fs::perms> Now = sys::fs::getPermissions(File);
    if (Now && *Now != Permissions)
      sys::fs::setPermissions(File, Permissions);
  }
}

bool FixGuard::inside(StringRef File) const {
  std::string Real = realPath(File).value_or(File.str());
  return llvm::any_of(Directories, [&](const std::string &D) { return isInside(Real, D); });
}

bool FixGuard::allowed(const std::string &File) {
  auto [It, Inserted] = Decided.try_emplace(File, true);
  if (!Inserted)
    return It->second;
  StringRef Why;
  ErrorOr<sys::fs::perms> Permissions = sys::fs::getPermissions(File);
  if (!inside(File))
    Why = "it is outside the source root and the directories of the analysed files";
  else if (!Permissions)
    Why = "it cannot be read";
  else if (!(*Permissions & sys::fs::owner_write) ||
           sys::fs::access(File, sys::fs::AccessMode::Write))
    Why = "it is read-only";
  if (Why.empty()) {
    Kept.emplace_back(File, *Permissions);
    return true;
  }
  It->second = false;
  ++Refusals;
  WithColor::error(errs(), "gradlint")
      << "not fixing '" << File << "': " << Why << "\n";
  return false;
}

} // namespace gradlint
