package linktoken_test

import (
	"fmt"

	"github.com/moveleads/partnerapi/shared/domain/linktoken"
)

func ExampleParse() {
	token, _ := linktoken.New()
	hash, err := linktoken.Parse(token)
	fmt.Println(len(token), len(hash), err)
	_, err = linktoken.Parse("../../etc/passwd")
	fmt.Println(err)
	// Output:
	// 43 64 <nil>
	// linktoken: malformed link token
}
