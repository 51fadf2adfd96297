// The window-store state-machine property: random sequences of puts, reads, iterator steps and
// closes run in lockstep on the store under test and on the reference model; every step's
// result (value, records, iterator answer, counters, stream time) must be equal. A difference
// is a Finding crediting the one W rule it breaks, decided from the op and from which field
// differs, with the model's report of what it did (model::WindowStoreModelCallReport): a put's
// stream time is W2's, its drop W3's, what an expiry removed W8's, a delete's effect W4's; a
// read's record hidden by the retention bound W6's, its order or key range W7's; an iterator
// after the store changed or closed W9's; construction W1's. A step whose comparison held
// counts the W1–W9 situations it reached (reports/rules.json, evidence.h). A failure is
// shrunk by rapidcheck and written as a trace (window_store_trace.h) that `statecheck replay`
// runs again.
//
// The store under test comes from a WindowStoreFactory, so a user's own WindowStore can be
// checked by the same property.
#ifndef STATECHECK_PROPERTIES_WINDOW_STORE_PROPERTY_H_
#define STATECHECK_PROPERTIES_WINDOW_STORE_PROPERTY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "properties/evidence.h"
#include "properties/window_store_ops.h"
#include "properties/window_store_trace.h"

namespace statecheck::properties {

// One point of the option matrix (retainDuplicates × window size × retention).
struct WindowStoreConfig {
  std::string label;  // e.g. "ret10_size3_dups": part of test names and trace file names.
  WindowStoreOptions options;
};

// retainDuplicates on/off; retention 0, small (10), large (1,000,000); window size 0, small
// (3), equal to retention — every valid combination (14).
std::vector<WindowStoreConfig> WindowStoreOptionMatrix();

struct PropertyParams {
  uint64_t seed = 0;
  int max_success = 100;  // Cases (operation sequences) to run.
  int max_size = 60;      // Upper bound on a sequence's length.
  bool shrink = true;
  // Re-runs exactly the case a failure printed (rapidcheck's reproduce string).
  std::optional<std::string> reproduce;
  // Where a failing case's shrunk trace is written ("" = not written).
  std::string trace_dir;
};

struct PropertyOutcome {
  std::string property;  // "window_store/MatchesModel/<label>"
  bool passed = false;
  int cases = 0;           // Sequences run to the end (shrinking attempts excluded).
  int64_t operations = 0;  // Every op executed, shrinking included.
  std::string message;     // Why it failed; empty on success.
  // The rule the failing check enforces (its Finding's); "" when the failure came from no check
  // (an unexpected exception, a crash): the report then says it is unattributed.
  std::string rule;
  Evidence evidence;  // The situations its cases reached and checked (evidence.h).
  std::string trace_path;
  std::string reproduce;
  std::vector<std::string> counterexample;  // The shrunk sequence, one op per line.
};

// The state-machine property for one configuration, against `sut`.
PropertyOutcome CheckWindowStoreMatchesModel(const WindowStoreFactory& sut,
                                             const WindowStoreConfig& config,
                                             const PropertyParams& params);

// Random store options, valid and invalid: `sut` and the model must build the same store or
// fail with the same code and message (W1).
PropertyOutcome CheckWindowStoreConstruction(const WindowStoreFactory& sut,
                                             const PropertyParams& params);

// The engine's and the model's factories.
WindowStoreFactory EngineWindowStoreFactory();
WindowStoreFactory ModelWindowStoreFactory();

}  // namespace statecheck::properties

#endif  // STATECHECK_PROPERTIES_WINDOW_STORE_PROPERTY_H_
