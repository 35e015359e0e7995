/** A change that waits for the authenticator code: what the step-up dialog says, and what runs with the token it gets. */
export interface StepUpAction {
  explanation: string;
  submitLabel: string;
  run(stepUpToken: string): Promise<void>;
}
