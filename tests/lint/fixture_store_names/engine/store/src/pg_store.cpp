// Fixture for store_names_selftest.sh: store_names.py must report exactly the lines marked BAD.
void fixture(const std::string& url, const Pg& db) {
  throw Error("store '" + url + "': no session");  // BAD
  throw Error("store '" + redactedStoreName(url) + "': no session");
  throw Error("store '" + db.name() + "': no session");
  throw Error("store '" + someOtherName(url) + "': no session");  // BAD
}
