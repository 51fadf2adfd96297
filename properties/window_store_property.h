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
#include "properties/kit/outcome.h"
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
