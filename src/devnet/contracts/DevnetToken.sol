// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title DevnetToken: ERC-20 for the devnet scenario.
/// @notice The owner mints and burns; holders transfer/approve as usual.
contract DevnetToken is ERC20, Ownable {
    constructor(string memory name_, string memory symbol_) ERC20(name_, symbol_) Ownable(msg.sender) {}

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    /// @notice Owner-only burn from any holder (a devnet convenience, not a pattern for real tokens).
    function burn(address from, uint256 amount) external onlyOwner {
        _burn(from, amount);
    }
}
