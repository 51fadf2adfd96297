// The window-store state-machine property: random sequences of puts, reads, iterator steps and
// closes run in lockstep on the store under test and on the reference model; every step's
// result (value, records, iterator answer, counters, stream time) must be equal. A difference
// is a Finding crediting the one W rule it breaks, decided from the op and from which field
// differs, with the model's report of what it did (model::WindowStoreModelCallReport): a put's
// stream time is W2's, its drop W3's, what an expiry removed W8's, a delete's effect W4's; a
// read's record hidden by the retention bound W6's, its order or key range W7's; an iterator
// after the store changed or closed W9's; construction W1's. A step whose comparison held
// counts the W1–W9 situations it reached (reports/rules.json, evidence.h). A failure is
// shrunk by rapidcheck and written as a trace (ops.h, the kit's trace.h) that `statecheck
// replay` runs again.
//
// The family is declared to the state-machine kit (kit/family.h). The store under test comes
// from a Factory, so a user's own WindowStore can be checked by the same property.
#ifndef STATECHECK_PROPERTIES_WINDOW_STORE_PROPERTY_H_
#define STATECHECK_PROPERTIES_WINDOW_STORE_PROPERTY_H_

#include <string>
#include <vector>

#include "properties/kit/outcome.h"
#include "properties/kit/trace.h"
#include "properties/window_store/ops.h"

namespace statecheck::properties::window_store {

// retainDuplicates on/off; retention 0, small (10), large (1,000,000); window size 0, small
// (3), equal to retention — every valid combination (14).
std::vector<Config> OptionMatrix();

// The state-machine property for one configuration, against `sut`.
PropertyOutcome CheckMatchesModel(const Factory& sut, const Config& config,
                                  const PropertyParams& params);

// Random store options, valid and invalid: `sut` and the model must build the same store or
// fail with the same code and message (W1). A failure is saved as a trace of no step whose
// header expects the model's construction outcome.
PropertyOutcome CheckConstruction(const Factory& sut, const PropertyParams& params);

// The engine's and the model's factories.
Factory EngineFactory();
Factory ModelFactory();

// Replays `trace` against `sut`, the model, or both in lockstep (then the two must also agree
// with each other). The model runs beside `sut` in every replay, checked or not: a difference
// of `sut`'s from it is credited to the rule the property would credit; a difference from the
// trace alone (the model's too) cites none. InvalidArgument when the model cannot build the
// configuration and the header does not expect that (nothing would be checked).
Status Replay(const kit::Trace<Vocabulary>& trace, ReplayTarget target, const Factory& sut,
              TraceReplay* out);

// window_store traces replayed against `sut`, the model, or both; --emit-gtest writes them as a
// test of the engine's public API (gtest_emitter.h).
TraceKindSpec TraceKind(const Factory& sut);

// The registry's entry: the construction property, the matrix's properties against the engine,
// and the traces.
FamilyEntry Entry();

}  // namespace statecheck::properties::window_store

#endif  // STATECHECK_PROPERTIES_WINDOW_STORE_PROPERTY_H_
