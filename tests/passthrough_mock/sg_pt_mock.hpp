// A link-seam stand-in for libsgutils2's sg_pt interface (in the spirit of sg3_utils'
// sg_pt_dummy.c): linked into test_sg_mock only, it defines the sg_pt functions SgDevice calls,
// so that the executable's definitions take the place of the library's, and answers each
// command from a script the test sets. It also answers SG_GET_VERSION_NUM for the descriptor it
// hands out (SgDevice::open's "does SG_IO work here" probe); every other ioctl goes to the kernel.
// What SgDevice passed down (CDB, buffers, timeout) is recorded for the test to check.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sgmock {

struct Script {
  // ---- how the next command ends ----
  int do_rc = 0;                // do_scsi_pt's return: 0, SCSI_PT_DO_* or a negated errno
  int category = 0;             // get_scsi_pt_result_category (SCSI_PT_RESULT_*)
  int status = 0;               // SCSI status byte
  std::vector<std::uint8_t> sense;  // copied into the caller's sense buffer
  int resid = 0;
  int transport_err = 0;
  std::string transport_text;
  int os_err = 0;
  std::vector<std::uint8_t> data_in;  // what the "device" returns (copied into the data-in buffer)
  bool construct_fails = false;       // construct_scsi_pt_obj returns null
  // ---- opening ----
  int open_errno = 0;      // scsi_pt_open_device fails with it
  int pt_kind = 1;         // check_pt_file_handle: 1 sg, 2 bsg, 3/4 NVMe
  int sg_version = 30536;  // SG_GET_VERSION_NUM's answer; 0: the ioctl fails (ENOTTY)
  // ---- what SgDevice did ----
  std::vector<std::uint8_t> cdb;
  std::vector<std::uint8_t> data_out;
  int data_in_len = -1, data_out_len = -1, sense_len = -1;
  int timeout_secs = -1;
  int commands = 0;
  int live_objects = 0;   // constructed minus destructed
  int open_fd = -1;       // the descriptor handed out (a real one, on /dev/null)
  bool closed = false;
};

// The script (one per process); reset() before each case.
Script& script();
void reset();

}  // namespace sgmock
