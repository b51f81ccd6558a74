/*
 * drive table
 */
  { "VERSION: 1.0 seed", "-", "-", "Version information", "" },
  { "Acme Spinner (SMR)", // tested with ACME S200/AB01
    "ACME S(1|2)00", "AB0[1-3]",
    "Firmware AB01 may lose data,\n"
    "update it",
    "-v 9,minutes -v 240,raw48,Head_Flying_Hours -F xerrorlba"
  },
  { "$Disabled", "ACME \"Q\" .*", "", "", "-F nologdir", },
