#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gridsim::fuzzing::simgrid_xml(data));
