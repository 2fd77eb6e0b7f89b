/** A button that sends one metadata operation, then re-reads the metadata the pages show. */
import type { ReactNode } from 'react';
import type { MetadataOp } from '../api/client';
import { useConsole } from '../state';
import { ActionButton } from './ui';

export function OperationButton({
  op,
  children,
  onDone,
  danger,
  confirm,
  testId,
}: {
  op: MetadataOp;
  children: ReactNode;
  onDone?: () => void;
  danger?: boolean;
  confirm?: string;
  testId?: string;
}) {
  const { client, refresh } = useConsole();
  return (
    <ActionButton
      danger={danger}
      confirm={confirm}
      testId={testId}
      onClick={async () => {
        await client.metadata(op);
        await refresh();
        onDone?.();
      }}
    >
      {children}
    </ActionButton>
  );
}
