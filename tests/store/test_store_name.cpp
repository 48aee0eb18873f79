// redactedStoreName and withoutStoreSecrets (voxen/store/store_name.hpp): a store's password
// never shows, in every spelling libpq accepts (checked against libpq 15's PQconninfoParse:
// the URL's userinfo, percent-encoded, a password= or sslpassword= query parameter with its key
// percent-encoded, a keyword/value string with quotes and escapes), and in the spellings libpq
// misreads (an unencoded '/' or '@' in the password), whose pieces libpq's own errors echo.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "voxen/store/store_name.hpp"

using namespace voxen;

namespace {

struct Spelling {
  std::string target, redacted;
  std::vector<std::string> secrets;  // none may show, as written or decoded
};

const std::vector<Spelling>& spellings() {
  static const std::vector<Spelling> all = {
      // URL userinfo, both schemes.
      {"postgresql://robot:s3cret@db.example:5432/maps", "postgresql://robot:***@db.example:5432/maps", {"s3cret"}},
      {"postgres://robot:s3cret@db/maps", "postgres://robot:***@db/maps", {"s3cret"}},
      {"POSTGRESQL://robot:s3cret@db/maps", "POSTGRESQL://robot:***@db/maps", {"s3cret"}},
      // Percent-encoded ('@' '/' ':' encoded, as they must be).
      {"postgresql://robot:s%40c%2Fr%3Aet@db/maps", "postgresql://robot:***@db/maps", {"s@c/r:et", "s%40c%2Fr%3Aet"}},
      // Unencoded '/', '@', ':', '?', '#' in the password (libpq reads "pa/ss" as port "pa").
      {"postgresql://robot:pa/ss@db/maps", "postgresql://robot:***@db/maps", {"pa/ss", "pa", "ss@"}},
      {"postgres://robot:p@ss:w@rd@db/maps?sslmode=require", "postgres://robot:***@db/maps?sslmode=require", {"p@ss:w@rd", "ss:w"}},
      {"postgresql://robot:p?ss#x&y@db/maps", "postgresql://robot:***@db/maps", {"p?ss#x&y", "ss#x"}},
      {"postgresql://robot:a:b@db/maps", "postgresql://robot:***@db/maps", {"a:b"}},
      // Several hosts.
      {"postgresql://robot:s3cret@h1:5432,h2:5433/maps", "postgresql://robot:***@h1:5432,h2:5433/maps", {"s3cret"}},
      // Query parameters: password=, sslpassword=, the key percent-encoded or in another case.
      {"postgresql:///maps?host=/tmp/x&password=s3cret&user=robot", "postgresql:///maps?host=/tmp/x&password=***&user=robot", {"s3cret"}},
      {"postgresql:///maps?passwor%64=s3cret&host=/tmp", "postgresql:///maps?passwor%64=***&host=/tmp", {"s3cret"}},
      {"postgresql:///maps?%70%61ssword=s3cret", "postgresql:///maps?%70%61ssword=***", {"s3cret"}},
      {"postgresql:///maps?PassWord=s3cret", "postgresql:///maps?PassWord=***", {"s3cret"}},
      {"postgresql:///maps?sslpassword=k3y&sslmode=require", "postgresql:///maps?sslpassword=***&sslmode=require", {"k3y"}},
      {"postgresql:///maps?password=s%26cr%3Det", "postgresql:///maps?password=***", {"s&cr=et", "s%26cr%3Det"}},
      {"postgresql:///maps?password=a?b=c", "postgresql:///maps?password=***", {"a?b=c"}},
      // No raw '=': libpq refuses it and echoes it whole.
      {"postgresql:///maps?passwor%64%3Ds3cret", "postgresql:///maps?***", {"s3cret"}},
      // Both at once, and a '?' inside the userinfo before a real query.
      {"postgresql://robot:one@db/maps?password=two", "postgresql://robot:***@db/maps?password=***", {"one", "two"}},
      {"postgresql://robot:o?ne@db/maps?password=two", "postgresql://robot:***@db/maps?password=***", {"o?ne", "two"}},
      // Keyword/value strings (named when refused): plain, spaced, quoted with escapes, escaped.
      {"host=/tmp password=s3cret user=robot", "host=/tmp password=*** user=robot", {"s3cret"}},
      {"host=/tmp password = s3cret", "host=/tmp password = ***", {"s3cret"}},
      {"host=/tmp password=my secret words user=robot", "host=/tmp password=*** user=robot", {"my secret words", "secret", "words"}},
      {"password='s3 cr\\'et' dbname=maps", "password=*** dbname=maps", {"s3 cr'et", "s3 cr", "cr\\'et"}},
      {"dbname=maps\tpassword=s3\\ cret", "dbname=maps\tpassword=***", {"s3 cret", "s3\\ cret", "cret"}},
      {"dbname=maps sslpassword='k3y'", "dbname=maps sslpassword=***", {"k3y"}},
      {"password='s3cret", "password=***", {"s3cret"}},  // unterminated
  };
  return all;
}

bool contains(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

}  // namespace

TEST_CASE("A store's name hides its password in every spelling libpq accepts", "[store]") {
  for (const Spelling& s : spellings()) {
    INFO(s.target);
    const std::string name = redactedStoreName(s.target);
    CHECK(name == s.redacted);
    for (const std::string& secret : s.secrets) CHECK_FALSE(contains(name, secret));
  }
}

TEST_CASE("A store's name without a password is left as written", "[store]") {
  for (const std::string target :
       {"postgresql://robot@db/maps", "postgresql:///maps?host=/tmp/x&user=voxen", "postgresql://db:5432/maps?sslmode=require",
        "maps/password=x.vxs", "run1.vxs", "/data/maps/run 2.vxs", "host=/tmp dbname=maps", ""})
    CHECK(redactedStoreName(target) == target);
}

TEST_CASE("A keyword/value connection string is told from a file path", "[store]") {
  for (const char* target : {"host=/tmp dbname=maps", " dbname = maps password=x", "password=s3cret", "sslmode=require host=db"})
    CHECK(isKeywordConnectionString(target));
  for (const char* target : {"maps/host=x.vxs", "run=3.vxs", "host.vxs", "postgresql://robot@db/maps", "hosts=x", ""})
    CHECK_FALSE(isKeywordConnectionString(target));
}

TEST_CASE("libpq's messages about a store lose its password and the pieces libpq cut from it", "[store]") {
  // Messages as libpq 15 writes them for these targets.
  struct Case {
    std::string target, message, expected;
  };
  const std::vector<Case> cases = {
      {"postgresql://role:pw%zz@host/db", "invalid percent-encoded token: \"pw%zz\"", "invalid percent-encoded token: \"***\""},
      {"postgresql://role:pa/ss@host/db", "invalid integer value \"pa\" for connection option \"port\"",
       "invalid integer value \"***\" for connection option \"port\""},
      {"postgresql://role:p@ss@host/db",
       "could not translate host name \"ss@host\" to address: Name or service not known",
       "could not translate host name \"***\" to address: Name or service not known"},
      {"postgresql://role:pw@[::1",
       "end of string reached when looking for matching \"]\" in IPv6 host address in URI: \"postgresql://role:pw@[::1\"",
       "end of string reached when looking for matching \"]\" in IPv6 host address in URI: \"postgresql://role:***@[::1\""},
      {"postgresql://role:p%41ss/x@host/db", "invalid integer value \"pAss\" for connection option \"port\"",
       "invalid integer value \"***\" for connection option \"port\""},
      {"postgresql://role:s3cret@/db?host=/tmp/x",
       "connection to server on socket \"/tmp/x/.s.PGSQL.5432\" failed: FATAL:  password authentication failed for user \"role\"",
       "connection to server on socket \"/tmp/x/.s.PGSQL.5432\" failed: FATAL:  password authentication failed for user \"role\""},
      {"host=/tmp password=my secret user=x", "missing \"=\" after \"secret\" in connection info string",
       "missing \"=\" after \"***\" in connection info string"},
      {"run1.vxs", "unable to open \"run1.vxs\"", "unable to open \"run1.vxs\""},
  };
  for (const Case& c : cases) {
    INFO(c.target << " / " << c.message);
    CHECK(withoutStoreSecrets(c.message, c.target) == c.expected);
  }
  // Every piece of every spelling's password quoted (as libpq quotes what it echoes), the
  // whole target, and the password as libpq reads it (the first of secrets) unquoted.
  for (const Spelling& s : spellings())
    for (const std::string& secret : s.secrets) {
      INFO(s.target << " / " << secret);
      const std::string message =
          withoutStoreSecrets("bad \"" + secret + "\" in " + s.target + " (read as " + s.secrets.front() + ")", s.target);
      CHECK_FALSE(contains(message, secret));
    }
}
