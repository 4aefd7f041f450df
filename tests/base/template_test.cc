// base/template.h: @NAME@ placeholders.
#include "base/template.h"

#include <gtest/gtest.h>

#include <string>

namespace stguard::base {
namespace {

TEST(FillTemplate, ReplacesGivenPlaceholdersOnce) {
  const TemplateValue values[] = {{"A", "1"}, {"LONG_NAME", "two"}, {"EMPTY", ""}};
  EXPECT_EQ(fill_template("@A@+@LONG_NAME@=@A@@EMPTY@.", values), "1+two=1.");
  EXPECT_EQ(fill_template("no placeholders", values), "no placeholders");
  EXPECT_EQ(fill_template("", values), "");
}

TEST(FillTemplate, LeavesEverythingElseAlone) {
  const TemplateValue values[] = {{"A", "1"}};
  EXPECT_EQ(fill_template("a@b.c @media @", values), "a@b.c @media @");
  EXPECT_EQ(fill_template("@UNKNOWN@ @A@", values), "@UNKNOWN@ 1");
  // The '@' closing an unknown name may open a known one.
  EXPECT_EQ(fill_template("x@y@A@", values), "x@y1");
  EXPECT_EQ(fill_template("@@A@@", values), "@1@");
}

TEST(FillTemplate, ValuesAreNeverScannedAgain) {
  const TemplateValue values[] = {{"TITLE", "@BODY@"}, {"BODY", "b"}};
  EXPECT_EQ(fill_template("@TITLE@ @BODY@", values), "@BODY@ b");
}

}  // namespace
}  // namespace stguard::base
