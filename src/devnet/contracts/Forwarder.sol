// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Forwarder: produces nested internal transactions for trace tests.
/// @notice forward(hop, target) with value V gives this call tree (depth in brackets):
///   [0] EOA -> Forwarder.forward{V}
///   [1]   STATICCALL  Forwarder -> hop.hops()
///   [1]   DELEGATECALL Forwarder -> hop.bump()        (writes Forwarder's own storage)
///   [1]   CALL{V}     Forwarder -> hop.relay(target)
///   [2]     CALL{V}   hop -> target                   (plain value transfer)
contract Forwarder {
    uint256 public hops;

    event Forwarded(address indexed sender, address indexed target, uint256 value, uint256 depth);

    function forward(Forwarder hop, address payable target) external payable returns (uint256 hopCount) {
        hopCount = hop.hops(); // view call: compiled to STATICCALL
        (bool ok,) = address(hop).delegatecall(abi.encodeCall(Forwarder.bump, ()));
        require(ok, "Forwarder: delegatecall failed");
        hop.relay{value: msg.value}(target);
        emit Forwarded(msg.sender, target, msg.value, 1);
    }

    function relay(address payable target) external payable {
        hops += 1;
        (bool ok,) = target.call{value: msg.value}("");
        require(ok, "Forwarder: value transfer failed");
        emit Forwarded(msg.sender, target, msg.value, 2);
    }

    /// @dev payable: a DELEGATECALL keeps the caller's msg.value, so a non-payable bump() would
    /// revert when forward() carries ether.
    function bump() external payable {
        hops += 1;
    }
}
