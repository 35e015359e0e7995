/** "test wallet" beside the signed-in address when it is this browser's test wallet, so nobody takes it for a real one. */
import { useEffect, useState } from 'preact/hooks';
import { storedTestWallet } from '../test-wallet.js';
import './test-wallet.css';

export function TestWalletBadge({ address }: { address: string }) {
  const [test, setTest] = useState(false);
  useEffect(() => {
    let live = true;
    setTest(false);
    storedTestWallet().then(
      (wallet) => live && setTest(wallet?.address === address),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [address]);
  return test ? (
    <span class="badge test" title="A keypair made in this browser for evaluation: never send funds to it">
      test wallet
    </span>
  ) : null;
}
