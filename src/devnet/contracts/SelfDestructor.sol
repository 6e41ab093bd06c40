// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title SelfDestructor: holds ether and self-destructs to a beneficiary.
/// @notice Since Cancun (EIP-6780) SELFDESTRUCT only deletes the account when it runs in the same
/// transaction that created the contract. The devnet scenario deploys this contract in one
/// transaction and calls destroy() in a later one, so the call only sends the whole balance to the
/// beneficiary (a SELFDESTRUCT frame with value in the trace) and the code stays in place.
contract SelfDestructor {
    event Destroying(address indexed beneficiary, uint256 amount);

    constructor() payable {}

    receive() external payable {}

    function destroy(address payable beneficiary) external {
        emit Destroying(beneficiary, address(this).balance);
        selfdestruct(beneficiary);
    }
}
