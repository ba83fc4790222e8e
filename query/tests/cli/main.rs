//! The query tool as users and scripts run it, one test binary.

mod basics;
mod batch_garbage;
mod changed_underneath;
mod common;
mod connect_four_cli;
mod corruption;
mod dandelions_cli;
mod docs;
mod dots_and_boxes_cli;
mod dots_and_boxes_search;
mod first_contact;
mod hostile;
mod k_in_a_row_cli;
mod many_readers;
mod newcomer;
mod packed;
mod play_cli;
mod probe_agrees;
mod python_reader;
mod serve;
mod serve_limits;
mod serve_protocol;
mod shapes;
mod stats_cli;
mod svg_color_cli;
mod table_bits;
