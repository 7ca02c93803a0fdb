package stack

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
)

// Findings returns the error and warning annotations (cdk-nag's among
// them) of every stack in asm, one "path: message" line each. A synth that
// yields any error must not be deployed.
func Findings(asm cxapi.CloudAssembly) (errs, warnings []string) {
	for _, st := range *asm.Stacks() {
		for _, m := range *st.Messages() {
			line := fmt.Sprintf("%s: %v", *m.Id, m.Entry.Data)
			switch m.Level {
			case cxapi.SynthesisMessageLevel_ERROR:
				errs = append(errs, line)
			case cxapi.SynthesisMessageLevel_WARNING:
				warnings = append(warnings, line)
			}
		}
	}
	return errs, warnings
}
