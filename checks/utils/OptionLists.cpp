//===--- OptionLists.cpp - `qualified::name:index` option values ----------===//

#include "utils/OptionLists.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"

namespace clang::tidy::gradlint {

bool FunctionArgumentList::parse(llvm::StringRef Option, std::string &Error) {
  llvm::SmallVector<llvm::StringRef, 4> Items;
  Option.split(Items, ';', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Item : Items) {
    Item = Item.trim();
    if (Item.empty())
      continue;
    auto [Name, Index] = Item.rsplit(':');
    unsigned Value;
    Name = Name.trim().ltrim(':');
    if (Name.empty() || Index.trim().getAsInteger(10, Value)) {
      Error = ("'" + Item + "': expected 'qualified::name:argument-index'").str();
      return false;
    }
    Entries[Name].push_back(Value);
    size_t Pos = Name.rfind("::");
    ShortNames.insert(Pos == llvm::StringRef::npos ? Name : Name.substr(Pos + 2));
  }
  return true;
}

llvm::ArrayRef<unsigned>
FunctionArgumentList::indicesFor(llvm::StringRef QualifiedName) const {
  auto It = Entries.find(QualifiedName);
  if (It == Entries.end())
    return {};
  return It->second;
}

} // namespace clang::tidy::gradlint
